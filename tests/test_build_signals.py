# ruff: noqa: F811 - pytest fixtures imported from test_build are redefined as arguments
"""Ctrl-C and SIGTERM at any moment: the outputs are all old or all new, nothing is left behind,
and the build never exits 0 after a signal (issue 14, item 4)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from test_build import REPO, built, edit, project, snapshot  # noqa: F401 - fixtures

from buildlib import fsutil
from buildlib.interrupt import run_guarded
from buildlib.pipeline import build_all, write_outputs


def changed_title(project):
    """Outputs of the sample with a new title: the post, its freeze's neighbours and README change."""
    edit(project, "title: 样例文章", "title: 新的标题")
    return build_all(project, execute_stale=True)


def test_a_signal_during_the_commit_waits_until_every_file_is_renamed(project, monkeypatch):
    outputs = changed_title(project)
    real = os.replace

    def replace(a, b):
        os.kill(os.getpid(), signal.SIGTERM)  # held: lands after the last rename
        real(a, b)

    monkeypatch.setattr(os, "replace", replace)
    assert run_guarded(write_outputs, project, outputs) == 128 + signal.SIGTERM
    monkeypatch.setattr(os, "replace", real)
    assert "新的标题" in (project.root / "posts/sample-post.md").read_text(encoding="utf-8")
    assert "新的标题" in (project.root / "README.md").read_text(encoding="utf-8")  # all new
    assert list(project.root.rglob("*.tmp")) == []


def test_a_signal_while_staging_leaves_every_output_as_it_was(project, monkeypatch):
    outputs = changed_title(project)
    before = snapshot(project.root)
    real = fsutil._write

    def write(f, data):
        real(f, data)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(fsutil, "_write", write)
    assert run_guarded(write_outputs, project, outputs) == 128 + signal.SIGINT
    assert snapshot(project.root) == before
    assert list(project.root.rglob("*.tmp")) == []


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # on purpose
def test_a_ctrl_c_swallowed_by_a_finalizer_still_stops_the_build(project):
    outputs = changed_title(project)
    before = snapshot(project.root)

    class Finalized:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10_000):  # the handler runs here: Python prints and drops its error
                pass

    def build():
        Finalized()  # collected at once; the KeyboardInterrupt never reaches us
        write_outputs(project, outputs)
        return 0

    assert run_guarded(build) == 128 + signal.SIGINT
    assert snapshot(project.root) == before


@pytest.mark.parametrize("how", ["SIGINT to the group", "SIGTERM"])
def test_an_interrupted_cli_build_leaves_no_files_and_no_kernel(built, tmp_path, how):
    root = tmp_path / "p"
    shutil.copytree(built, root)
    shutil.copy(REPO / "build.py", root)
    shutil.copy(REPO / "pyproject.toml", root)  # tangle reads the package's version there
    shutil.copytree(
        REPO / "buildlib", root / "buildlib", ignore=shutil.ignore_patterns("__pycache__")
    )
    pmd = root / "src_literate/sample.pmd"
    text = pmd.read_text(encoding="utf-8")
    pmd.write_text(text.replace("print(scale(21))", "import time\ntime.sleep(60)"), "utf-8")
    before = snapshot(root)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "build.py", "posts"],
        cwd=root,
        env=dict(os.environ, TMPDIR=str(tmp), PYTHONPATH=""),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    line = ""
    while "[2/7]" not in line and time.monotonic() < deadline:  # chunk 3 sleeps
        line = proc.stderr.readline()
    time.sleep(1)
    if how == "SIGTERM":
        proc.send_signal(signal.SIGTERM)
    else:
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + (signal.SIGTERM if how == "SIGTERM" else signal.SIGINT)
    assert err.strip().split("\n")[-1].startswith("error: interrupted (SIG")
    assert snapshot(root) == before
    assert list(tmp.iterdir()) == []  # staged package, scratch folder, kernel connection file
    assert list(root.rglob("*.tmp")) == []
    alive = subprocess.run(["pgrep", "-f", str(tmp)], capture_output=True, text=True).stdout
    assert alive == ""  # the kernel was shut down
