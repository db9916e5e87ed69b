"""The posts' executed output must not depend on the machine that weaves them.

The build pins ATen to its AVX2 kernels (`kernel.PINNED_CPU_CAPABILITY`), so AVX-512 and AVX2
machines print the same figures, and records the capability in the freeze's key. Each real
source is executed again here with one thread (the build machine may use more) under every
capability torch can dispatch to on this machine, the runs side by side:

- under the pinned capability the output must be exactly what the committed freeze holds;
- under any other, the output must either be the same or the key must record the other
  capability, so that `posts` executes again and `check` names the change: no machine is ever
  served another machine's figures.

A float printed to 1e-7, a timing or an address would differ here; a verdict against a stated
tolerance does not.
"""

from __future__ import annotations

import platform
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from buildlib import freeze as freezing
from buildlib.kernel import PINNED_CPU_CAPABILITY, run_chunks
from buildlib.pipeline import Project, load
from buildlib.tangle import tangle
from buildlib.weave import stage_package

REPO = Path(__file__).resolve().parent.parent
SOURCES = load(Project(REPO))[1]
X86_ORDER = ["default", "avx2", "avx512"]  # ATen's x86 capabilities, weakest first


def capabilities() -> list[str]:
    """The capabilities torch can dispatch to here (its best one and every weaker one)."""
    best = freezing.cpu_capability(None).lower()
    if platform.machine().lower() not in ("x86_64", "amd64") or best not in X86_ORDER:
        return [best]
    return X86_ORDER[: X86_ORDER.index(best) + 1]


def execute(src, capability: str, package: dict[str, str]):
    with tempfile.TemporaryDirectory() as tmp:
        stage_package(package, Path(tmp), REPO)
        env = {"OMP_NUM_THREADS": "1", "ATEN_CPU_CAPABILITY": capability}
        return run_chunks(src, REPO, Path(tmp), env=env)


@pytest.mark.parametrize("src", SOURCES, ids=[s.slug for s in SOURCES])
def test_output_is_the_same_on_other_machines_or_the_key_tells(src):
    frozen = freezing.read_freeze(REPO, src)
    assert frozen is not None, f"{src.rel} has no freeze; run `python build.py posts`"
    caps = capabilities()
    package = tangle(SOURCES)  # here: ast is not safe to run in several threads at once
    with ThreadPoolExecutor(max_workers=len(caps)) as pool:
        runs = dict(zip(caps, pool.map(lambda c: execute(src, c, package), caps), strict=True))
    labels = [c["label"] for c in frozen.inputs["chunks"]]
    for cap, run in runs.items():
        differ = [
            f"{label}: {old!r} != {new!r}"
            for label, old, new in zip(labels, frozen.records, run.outputs, strict=True)
            if old != new
        ]
        told = run.read.get("cpu") != frozen.inputs["cpu"]
        if cap == PINNED_CPU_CAPABILITY or not told:
            assert not differ, f"ATEN_CPU_CAPABILITY={cap}:\n" + "\n".join(d[:400] for d in differ)
