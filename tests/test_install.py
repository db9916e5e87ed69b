"""`pip install .` in a fresh virtual environment gives the package and the scanner command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A venv that sees this machine's torch (so no CUDA build is pulled) and holds our package."""
    root = tmp_path_factory.mktemp("venv")
    src = root / "src"
    # a copy, so that the build's egg-info and build/ never land in the repository
    shutil.copytree(
        REPO,
        src,
        ignore=shutil.ignore_patterns(
            ".git", "node_modules", "preview", ".cache", "*.pyc", "__pycache__"
        ),
    )
    # build the wheel with this interpreter's setuptools (offline), then install it into the venv,
    # whose dependencies (torch, triton, transformers, numpy) this machine's site-packages satisfy
    wheels = root / "wheels"
    res = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["-w", str(wheels), str(src)],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    env = root / "env"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(env)], check=True)
    (wheel,) = wheels.glob("qwen3_fusion-*.whl")
    res = subprocess.run(
        # --ignore-installed: a qwen3-fusion already in the system site-packages would otherwise
        # satisfy the requirement, and nothing (no console script) would land in the venv;
        # --no-deps: the dependencies come from the system site-packages the venv sees
        [
            str(env / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--ignore-installed",
            "--no-deps",
            str(wheel),
        ],  # fmt: skip
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    return env


def run_in(venv: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TRITON_INTERPRET"] = "1"
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=venv)


def test_the_package_installs_outside_the_repository(venv):
    res = run_in(
        venv,
        str(venv / "bin" / "python"),
        "-c",
        "import qwen3_fusion.rmsnorm as r, qwen3_fusion.signals as s; print(r.__file__)",
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert "site-packages" in res.stdout and str(REPO) not in res.stdout


def test_the_console_script_scans_a_model(venv):
    scan = venv / "bin" / "qwen3-fusion-scan"
    assert scan.exists()
    res = run_in(venv, str(scan), "--help")
    assert res.returncode == 0 and "usage" in res.stdout.lower()
    res = run_in(venv, str(scan), "--config", "qwen3-tiny", "--layers", "1", "--seq", "16")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "rmsnorm" in res.stdout.lower() or "RMSNorm" in res.stdout


def test_the_installed_package_carries_the_gpu_results(venv):
    res = run_in(venv, str(venv / "bin" / "python"), "-m", "qwen3_fusion.results")
    assert res.returncode == 0, res.stderr[-2000:]
    listed = [line.split()[0] for line in res.stdout.splitlines() if not line.startswith(" ")]  # not the caveats
    assert listed == sorted(p.name for p in (REPO / "src_literate" / "results").iterdir() if p.is_file() and not p.name.startswith(".") and p.name != "README.md")
    res = run_in(venv, str(venv / "bin" / "python"), "-m", "qwen3_fusion.results", "h200.json")
    assert res.returncode == 0 and '"gpu": "NVIDIA H200"' in res.stdout, res.stderr[-2000:]


def test_version_comes_from_pyproject_and_the_package_is_typed(venv):
    code = (
        "import importlib.metadata as m, pathlib, qwen3_fusion as q;"
        "print(q.__version__, m.version('qwen3-fusion'),"
        " (pathlib.Path(q.__file__).parent / 'py.typed').exists(),"
        " m.metadata('qwen3-fusion')['License-Expression'])"
    )
    res = run_in(venv, str(venv / "bin" / "python"), "-c", code)
    assert res.returncode == 0, res.stderr[-2000:]
    import tomllib

    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert res.stdout.split() == [version, version, "True", "Apache-2.0"]


# import name -> distribution that provides it, for the third-party imports of the package
DISTRIBUTIONS = {
    "torch": "torch",
    "triton": "triton",
    "transformers": "transformers",
    "numpy": "numpy",
    "sympy": "sympy",
    "liger_kernel": "liger-kernel",
    "pynvml": "nvidia-ml-py",
    "cutlass": "nvidia-cutlass-dsl",
    "quack": "quack-kernels",
}


def test_every_imported_distribution_is_declared():
    import ast
    import re

    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + sum(project["optional-dependencies"].values(), [])
    declared_names = {re.match(r"[\w.-]+", d).group(0).lower() for d in declared}
    imported = set()
    for path in (REPO / "generated" / "qwen3_fusion").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"qwen3_fusion", "__future__"}
    assert third_party <= set(DISTRIBUTIONS), (
        f"map these imports: {third_party - set(DISTRIBUTIONS)}"
    )
    assert {DISTRIBUTIONS[m] for m in third_party} <= declared_names
