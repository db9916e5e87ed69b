# ruff: noqa: F811 - pytest fixtures imported from test_build are redefined as arguments
"""The freeze sees every input the execution read (issue 14, item 2).

A chunk of the sample reads a file, a results file named indirectly, a listed folder, a module
imported through importlib, a helper imported through sys.path, an environment variable, numpy
and torch; each kind of change must make `check` name the input and `posts` execute again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_build import built, edit  # noqa: F401 - fixtures

from buildlib import freeze, weave
from buildlib.checks import run_checks
from buildlib.pipeline import Project, build_all, write_outputs

PMD = "src_literate/sample.pmd"
SERIES = "src_literate/series.yaml"


def write(project: Project, rel: str, text: str) -> None:
    path = project.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def replace(project: Project, rel: str, old: str, new: str) -> None:
    edit(project, old, new, path=rel)


READER = """```python
import importlib, json, os, sys
from pathlib import Path

name = "gpu"
print(json.loads(Path(f"src_literate/results/{name}.json").read_text())["speedup"])
print(sorted(f for _, _, files in os.walk("src_literate/results") for f in files))
print(Path("src_literate/data.txt").read_text().strip())
print(importlib.import_module("qwen3_fusion" + ".hidden_toy").double(2))
sys.path.insert(0, "src_literate")
import helper
import numpy
import torch

print(helper.VALUE, os.environ.get("OMP_NUM_THREADS", "unset"), numpy.int8(1), torch.tensor(1).item())
```

"""


@pytest.fixture(scope="module")
def reader_built(built, tmp_path_factory) -> Path:
    """The sample with a chunk that reads files, listings, modules, variables and libraries."""
    root = tmp_path_factory.mktemp("reader") / "p"
    shutil.copytree(built, root)
    p = Project(root)
    write(p, "src_literate/results/gpu.json", '{"speedup": 1.5}')
    write(p, "src_literate/data.txt", "data v1\n")
    write(p, "src_literate/helper.py", "VALUE = 1\n")
    replace(p, PMD, "```mermaid", READER + "```mermaid")
    write_outputs(p, build_all(p, execute_stale=True))
    return root


def env_default(monkeypatch):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")


# (what changes, how, the input check must name)
CHANGES = [
    (
        "a file a chunk opens",
        lambda p, m: write(p, "src_literate/data.txt", "data v2\n"),
        "src_literate/data.txt changed",
    ),
    (
        "a results file named indirectly",
        lambda p, m: write(p, "src_literate/results/gpu.json", '{"speedup": 2.5}'),
        "src_literate/results/gpu.json changed",
    ),
    (
        "a results file added to a listed folder",
        lambda p, m: write(p, "src_literate/results/h100.json", "{}"),
        "the files in src_literate/results/ changed",
    ),
    (
        "a module imported with importlib",
        lambda p, m: replace(p, PMD, "return 2 * x", "return 3 * x"),
        "generated/qwen3_fusion/hidden_toy.py changed",
    ),
    (
        "a helper imported through sys.path",
        lambda p, m: write(p, "src_literate/helper.py", "VALUE = 2\n"),
        "src_literate/helper.py changed",
    ),
    (
        "OMP_NUM_THREADS read by a chunk",
        lambda p, m: m.setenv("OMP_NUM_THREADS", "3"),
        "$OMP_NUM_THREADS unset -> '3'",
    ),
    (
        "another library's version",
        lambda p, m: m.setattr(
            freeze,
            "package_versions",
            lambda names, real=freeze.package_versions: {**real(names), "numpy": "0.1"},
        ),
        "numpy 2.",
    ),
    ("the CPU capability", lambda p, m: env_default(m), "CPU capability AVX2 -> DEFAULT"),
]


@pytest.mark.parametrize("case,change,named", CHANGES, ids=[c[0] for c in CHANGES])
def test_the_freeze_notices_a_change_of_anything_the_execution_read(
    reader_built, tmp_path, monkeypatch, case, change, named
):
    root = tmp_path / "p"
    shutil.copytree(reader_built, root)
    p = Project(root)
    freeze.cpu_capability.cache_clear()
    assert build_all(p, problems=[]) is not None
    change(p, monkeypatch)
    freeze.cpu_capability.cache_clear()
    problems: list[str] = []
    build_all(p, problems=problems)  # check's path: the stale source is a problem
    assert problems and problems[0].startswith("src_literate/_freeze/sample-post.json: ")
    assert named in problems[0], problems[0]
    said = []
    monkeypatch.setattr(weave, "run_chunks", lambda *a, **k: pytest.fail("executed"))
    with pytest.raises(pytest.fail.Exception, match="executed"):
        build_all(p, execute_stale=True, progress=said.append)  # posts' path: executes again
    assert named in said[-1]


def test_check_lists_every_stale_post(reader_built, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(reader_built, root)
    p = Project(root)
    other = (root / PMD).read_text(encoding="utf-8")
    other = other.replace("slug: sample-post", "slug: other-post").replace('module="', 'module="o_')
    other = other.replace("qwen3_fusion.hidden_toy", "qwen3_fusion.o_hidden_toy")
    write(p, "src_literate/zz_other.pmd", other)
    replace(
        p,
        SERIES,
        "glossary:",
        "  - slug: other-post\n    source: src_literate/zz_other.pmd\n"
        "    url: /posts/other-post/\nglossary:",
    )
    write_outputs(p, build_all(p, execute_stale=True))
    write(p, "src_literate/data.txt", "data v3\n")
    problems, _ = run_checks(p, browser=False, reader=False)
    stale = [x for x in problems if "are stale (src_literate/data.txt changed)" in x]
    assert [s.split(":")[0] for s in stale] == [
        "src_literate/_freeze/sample-post.json",
        "src_literate/_freeze/other-post.json",
    ]


def test_check_wants_every_imported_distribution_pinned_at_the_version_it_ran_on(reader_built, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(reader_built, root)
    p = Project(root)
    ran = json.loads((root / "src_literate/_freeze/sample-post.json").read_text())["inputs"]["versions"]
    assert ran["numpy"] != "absent" and ran["torch"] != "absent"
    pins = {d: v.split("+")[0] for d, v in ran.items() if d != "python" and v != "absent"}
    write(p, "requirements.txt", "".join(f"{d}=={v}\n" for d, v in pins.items() if d != "numpy"))
    write(p, "constraints.txt", "numpy==0.1\n")
    problems, _ = run_checks(p, browser=False, reader=False)
    assert [x for x in problems if "ran on" in x] == [
        f"src_literate/_freeze/sample-post.json: ran on numpy {pins['numpy']}, pinned at 0.1"
        " in requirements.txt or constraints.txt"
    ]
    write(p, "constraints.txt", f"NumPy=={pins['numpy']}  # normalised names match\n")
    problems, _ = run_checks(p, browser=False, reader=False)
    assert not [x for x in problems if "ran on" in x]
