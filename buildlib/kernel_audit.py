"""Runs inside the Jupyter kernel: records what an execution actually reads.

The build copies this file into the kernel's staging folder, imports it in a cell of its own
before the first chunk (`start(...)`) and calls `report()` after the last one. It records

- files opened for reading (a `sys.addaudithook` hook on the 'open' event, which covers
  open(), os.open(), io.open_code() and so imports) and folders listed (os.listdir and
  os.scandir, which glob, pathlib and os.walk use), each as a path relative to the repository;
- environment variables read through os.environ (os.getenv, os.environ.get, `in` ...)
  before the execution set them itself;
- the modules imported, as the installed distributions that provide them;
- the CPU capability ATen dispatches to, when torch was imported.

The build turns the names into a key (hashes, values, versions) with the same code for the
freeze and for `check`, so what it records is names only. Audit hooks cannot be removed; this
one lives as long as the kernel, which serves one source.
"""

from __future__ import annotations

import json
import os
import sys

_state: dict | None = None


class _RecordingEnviron(type(os.environ)):
    """os.environ that notes each variable read before the execution set it."""

    def __getitem__(self, key):
        state = _state
        if (
            state is not None
            and not state["busy"]
            and isinstance(key, str)
            and key not in state["env_set"]
        ):
            state["env"].add(key)
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        if _state is not None:
            _state["env_set"].add(key)
        super().__setitem__(key, value)

    def __delitem__(self, key):
        if _state is not None:
            _state["env_set"].add(key)
        super().__delitem__(key)


def _where(path) -> str | None:
    """The path relative to the repository (the staged package as generated/), or None."""
    if isinstance(path, int):
        return None
    try:
        full = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return None
    for base, prefix, inside in _state["bases"]:
        if full == base:
            return prefix.rstrip("/") or "."
        if full.startswith(base + os.sep):
            rel = prefix + full[len(base) + 1 :]
            return rel if rel.startswith(inside) else None
    return None


def _reads(mode, flags) -> bool:
    if isinstance(mode, str):
        return not any(c in mode for c in "wax+")
    return isinstance(flags, int) and not flags & (os.O_WRONLY | os.O_RDWR)


def _hook(event: str, args: tuple) -> None:
    state = _state
    if state is None or state["busy"] or event not in ("open", "os.listdir", "os.scandir"):
        return
    state["busy"] = True
    try:
        if event == "open":
            path, mode, flags = args
            rel = _where(path) if _reads(mode, flags) else None
            if rel is not None and "__pycache__" not in rel:
                state["files"].add(rel)
        elif not sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):
            # the import system lists every folder on sys.path; the modules it then opens
            # are recorded, so its listings are left out
            rel = _where(args[0] if args[0] is not None else ".")
            if rel is not None:
                state["listings"].add(rel)
    finally:
        state["busy"] = False


def start(root: str, scratch: str, package: str) -> None:
    """Begin recording; `scratch` mirrors src_literate/, `package` is the staged package."""
    global _state
    _state = {
        "busy": False,
        "files": set(),
        "listings": set(),
        "env": set(),
        "env_set": set(),
        "modules": set(sys.modules),
        # the most specific folder first: the stage and scratch may lie inside a test's root
        # (folder, its path in the repository, the part of it that holds inputs); the working
        # folder mirrors src_literate/ only: anything else there the execution wrote itself
        "bases": [
            (package, f"generated/{os.path.basename(package)}/", ""),
            (scratch, "", "src_literate/"),
            (root, "", ""),
        ],
    }
    os.environ.__class__ = _RecordingEnviron
    sys.addaudithook(_hook)


def report() -> None:
    """Print what was read as one JSON line (the build parses it; no chunk output follows)."""
    from importlib import metadata

    state = _state
    state["busy"] = True
    providers = metadata.packages_distributions()
    dists = set()
    for name in set(sys.modules) - state["modules"]:
        file = getattr(sys.modules.get(name), "__file__", None)
        where = _where(file) if isinstance(file, str) else None
        if where is not None:
            state["files"].add(where)
        dists.update(providers.get(name.partition(".")[0], ()))
    cpu = None
    if "torch" in sys.modules:
        cpu = sys.modules["torch"].backends.cpu.get_cpu_capability()
    print(
        json.dumps(
            {
                "files": sorted(state["files"]),
                "listings": sorted(state["listings"]),
                "env": sorted(state["env"]),
                "distributions": sorted(dists),
                "cpu": cpu,
            }
        )
    )
