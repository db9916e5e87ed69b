"""The posts' executed output must not depend on the machine that weaves them.

Each real source is executed again with one thread and ATen's AVX2 kernels (the build machine
may use AVX-512 and two threads) and must print exactly what its committed freeze holds.
A float printed to 1e-7, a timing or an address would differ here; a verdict against a stated
tolerance does not.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from buildlib import weave
from buildlib.pipeline import Project, load
from buildlib.tangle import tangle

REPO = Path(__file__).resolve().parent.parent
SOURCES = load(Project(REPO))[1]


@pytest.mark.parametrize("src", SOURCES, ids=[s.slug for s in SOURCES])
def test_output_is_the_same_with_other_threads_and_cpu_capability(src, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    package = tangle(SOURCES)
    freeze = weave.read_freeze(REPO, src)
    assert freeze is not None, f"{src.rel} has no freeze; run `python build.py posts`"
    with tempfile.TemporaryDirectory() as tmp:
        weave.stage_package(package, Path(tmp))
        outputs = weave.run_chunks(src, REPO, Path(tmp))
    labels = [c["label"] for c in freeze.inputs["chunks"]]
    differ = [
        f"{label}: {old!r} != {new!r}"
        for label, old, new in zip(labels, freeze.records, outputs, strict=True)
        if old != new
    ]
    assert not differ, "\n".join(d[:400] for d in differ)
