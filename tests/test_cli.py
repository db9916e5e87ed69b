"""build.py's command line: a description per command, --quiet, and distinct exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import build
from buildlib import sites

REPO = Path(__file__).resolve().parent.parent


def run(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO / "build.py"), *args], capture_output=True, text=True, **kw
    )


def test_every_command_has_a_description_and_quiet():
    top = build.parser()
    commands = top._subparsers._group_actions[0].choices
    assert set(commands) == {"tangle", "posts", "check", "preview", "site", "backlinks", "bench"}
    for name, p in commands.items():
        assert p.description and len(p.description) > 40, name
        assert any("--quiet" in a.option_strings for a in p._actions), name


def test_exit_codes_are_documented_in_the_readme_and_the_help():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for code in ("`0`", "`1`", "`2`", "`3`"):
        assert code in readme
    assert "Exit codes: 0 done; 1" in build.__doc__


def test_usage_error_is_2_and_environment_missing_is_3(monkeypatch, capsys):
    assert run("check", "--no-such-option").returncode == 2
    assert run("site", "jekyll").returncode == 2
    monkeypatch.setattr(sites, "missing", lambda tool, root=None: f"{tool} is not installed")
    assert build.main(["site", "hugo", "--out", "/nonexistent"]) == 3
    assert capsys.readouterr().err == "error: hugo is not installed\n"


def test_check_without_chromium_is_3(tmp_path):
    env = {"PATH": str(tmp_path), "CHROMIUM": str(tmp_path / "none"), "HOME": str(tmp_path)}
    res = run("check", "--no-reader", env=env)
    assert res.returncode == 3, res.stderr
    assert "chromium" in res.stderr and "--no-browser" in res.stderr


def test_quiet_tangle_prints_nothing():
    res = run("tangle", "--quiet")
    assert res.returncode == 0 and res.stdout == "" and res.stderr == ""
    assert "tangled generated/" in run("tangle").stdout


@pytest.mark.parametrize("args", [["bench", "--help"], ["bench", "-h"]])
def test_bench_help_shows_the_options_it_passes_on(args):
    res = run(*args, timeout=300)
    assert res.returncode == 0 and "--only" in res.stdout and "--smoke" in res.stdout


def test_ncu_target_says_it_needs_a_gpu_in_one_line():
    """The program Nsight Compute wraps (post 2's DRAM throughput) refuses a machine without CUDA clearly."""
    res = subprocess.run([sys.executable, "-m", "qwen3_fusion.ncu_target", "--widths", "1024"],
                         env=dict(os.environ, PYTHONPATH=str(REPO / "generated")), capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    if res.returncode == 0:  # a CUDA machine: it ran both backwards
        assert "N = 1024: done" in res.stdout
        return
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.strip() == "qwen3_fusion.ncu_target needs a CUDA GPU: Nsight Compute profiles its kernels"
