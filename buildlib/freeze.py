"""The freeze: a source's committed execution, keyed by everything that execution read.

The key is recorded, not guessed from the code's text: `kernel_audit` notes inside the kernel
the files opened, the folders listed, the environment variables read, the distributions imported
and ATen's CPU capability; this module turns those names into values (a hash per file and per
listing, the variable's value, the version, the capability) with one function, `input_key`, used
when the freeze is written and when `posts` or `check` ask whether it still holds. If nothing
the execution read has changed and the chunks' code has not, executing again would read the same
and print the same. (The model is ccache's "direct mode" and make's dependency files.)
"""

from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .errors import BuildError
from .fsutil import sha256_text
from .kernel import CONTROL, MIRROR_SKIP, MIRRORED, chunk_label, executed_chunks, kernel_environment
from .source import DATA_LINKS, Source
from .values import read_text

FREEZE_VERSION = 3
FREEZE_DIR = "src_literate/_freeze"
RESULTS_DIR = "src_literate/results"
# always in the key: the version banner of every post names them; IPython formats results
KEY_PACKAGES = ("torch", "triton", "transformers", "ipython")
# variables whose values are machine plumbing (paths, identity); the build sets the ones that
# matter to a chunk (PYTHONPATH, TMPDIR, PWD) to folders of its own
PLUMBING_ENV = frozenset(
    "HOME PATH PWD OLDPWD USER LOGNAME SHELL HOSTNAME TERM COLORTERM TMPDIR TEMP TMP PYTHONPATH"
    " PYTHONDONTWRITEBYTECODE PYDEVD_DISABLE_FILE_VALIDATION PYTHONWARNINGS".split()
)
PLUMBING_PREFIXES = ("JPY_", "IPYKERNEL_")  # the kernel's own, set per cell
INPUT_KINDS = ("files", "listings", "env", "versions", "cpu")
ABSENT = "absent"


def plumbing(name: str) -> bool:
    return name in PLUMBING_ENV or name.startswith(PLUMBING_PREFIXES)


def package_versions(names) -> dict[str, str]:
    """Installed versions of these distributions, and Python's."""
    out = {"python": platform.python_version()}
    for name in sorted(set(names)):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = ABSENT
    return out


@functools.lru_cache(maxsize=4)
def cpu_capability(requested: str | None) -> str:
    """The capability ATen dispatches to in a kernel started with ATEN_CPU_CAPABILITY=requested."""
    env = dict(os.environ)
    env.pop("ATEN_CPU_CAPABILITY", None)
    if requested:
        env["ATEN_CPU_CAPABILITY"] = requested
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    res = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    return res.stdout.strip() or ABSENT


def _mirror_listing(root: Path, rel: str) -> list[str] | None:
    """The names a chunk sees in a folder of its working folder (which mirrors src_literate/)."""
    if rel == ".":
        return [MIRRORED] if (root / MIRRORED).is_dir() else []
    path = root / rel
    if not path.is_dir():
        return None
    return sorted(p.name for p in path.iterdir() if p.name not in MIRROR_SKIP)


def _file_value(rel: str, root: Path, package: dict[str, str]) -> str:
    for link, target in DATA_LINKS.items():  # read through a data link: the committed file
        if rel.startswith(f"generated/{link}/"):
            rel = target + rel.removeprefix(f"generated/{link}")
    if rel.startswith("generated/"):
        text = package.get(rel.removeprefix("generated/"))
        return sha256_text(text)[:16] if text is not None else ABSENT
    path = root / rel
    return sha256_text(path.read_bytes())[:16] if path.is_file() else ABSENT


def input_key(read: dict, root: Path, package: dict[str, str]) -> dict:
    """The values now of what an execution read (`read`: names, as kernel_audit reports them)."""
    env = kernel_environment(Path("/stage"), Path("/scratch"))
    listings = {}
    for rel in read.get("listings", []):
        names = _mirror_listing(root, rel)
        listings[rel] = sha256_text(*names)[:16] if names is not None else ABSENT
    return {
        "files": {rel: _file_value(rel, root, package) for rel in read.get("files", [])},
        "listings": listings,
        "env": {k: env.get(k) for k in read.get("env", []) if not plumbing(k)},
        "versions": package_versions([*KEY_PACKAGES, *read.get("distributions", [])]),
        "cpu": cpu_capability(env.get("ATEN_CPU_CAPABILITY")) if read.get("cpu") else None,
    }


def chunk_key(src: Source) -> list[dict]:
    return [
        {"label": chunk_label(c), "sha": sha256_text(src.visible_code(c))[:16]}
        for c in executed_chunks(src)
    ]


def names_of(inputs: dict) -> dict:
    """What a key holds, as names (the inverse of input_key)."""
    return {
        "files": list(inputs["files"]),
        "listings": list(inputs["listings"]),
        "env": list(inputs["env"]),
        "distributions": [v for v in inputs["versions"] if v != "python"],
        "cpu": inputs["cpu"] is not None,
    }


def current_key(src: Source, frozen: dict, root: Path, package: dict[str, str]) -> dict:
    """The key of `src` now, over the inputs its frozen execution read."""
    return {"chunks": chunk_key(src), **input_key(names_of(frozen), root, package)}


def _shown(value: str | None) -> str:
    return "unset" if value is None else repr(value)


# how each kind of input that changed is named in a message
CHANGES = {
    "files": lambda name, was, now: (
        f"{name} {'added' if was == ABSENT else 'removed' if now == ABSENT else 'changed'}"
    ),
    "listings": lambda name, was, now: f"the files in {name}/ changed",
    "env": lambda name, was, now: f"${name} {_shown(was)} -> {_shown(now)}",
    "versions": lambda name, was, now: f"{name} {was} -> {now}",
}


def stale_inputs(frozen: dict, now: dict) -> list[str]:
    """Why a frozen execution no longer matches its inputs (empty when it does)."""
    why: list[str] = []
    old_chunks, new_chunks = frozen["chunks"], now["chunks"]
    old_shas = [c["sha"] for c in old_chunks]
    for k, c in enumerate(new_chunks):
        if k >= len(old_chunks) or old_chunks[k]["sha"] != c["sha"]:
            what = "is new" if c["sha"] not in old_shas else "moved"
            if k < len(old_chunks) and old_chunks[k]["label"] == c["label"]:
                what = "changed"
            why.append(f"chunk {c['label']} {what}")
            break
    if len(new_chunks) < len(old_chunks) and not why:
        why.append(f"chunk {old_chunks[len(new_chunks)]['label']} was removed")
    for kind, describe in CHANGES.items():
        for name, value in now[kind].items():
            was = frozen[kind].get(name)
            if was != value:
                why.append(describe(name, was, value))
    if frozen["cpu"] != now["cpu"]:
        why.append(f"CPU capability {frozen['cpu']} -> {now['cpu']}")
    return why


@dataclass
class Freeze:
    """A source's committed execution: its key and one record of outputs per executed chunk."""

    source: str
    inputs: dict
    records: list[list[dict]]

    def to_text(self) -> str:
        data = {
            "version": FREEZE_VERSION,
            "source": self.source,
            "inputs": self.inputs,
            "outputs": [
                {"chunk": c["label"], "outputs": r}
                for c, r in zip(self.inputs["chunks"], self.records, strict=True)
            ],
        }
        return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"

    def results_read(self) -> set[str]:
        """Names of the results files the execution opened (h200.json)."""
        prefix = f"{RESULTS_DIR}/"
        return {
            rel.removeprefix(prefix)
            for rel, value in self.inputs["files"].items()
            if rel.startswith(prefix) and value != ABSENT
        }


def freeze_path(root: Path, src: Source) -> Path:
    return root / FREEZE_DIR / f"{src.slug}.json"


def read_freeze(root: Path, src: Source) -> Freeze | None:
    """The committed freeze of `src`; None when there is none or it has an older format."""
    path = freeze_path(root, src)
    if not path.exists():
        return None
    rel = path.relative_to(root).as_posix()
    try:
        data = json.loads(read_text(path, root))
    except RecursionError:
        raise BuildError("freeze is nested too deeply; rebuild with --refresh", rel) from None
    except json.JSONDecodeError as e:
        raise BuildError(
            f"freeze is not JSON ({e.msg}); rebuild with --refresh", rel, e.lineno
        ) from None
    if not isinstance(data, dict) or data.get("version") != FREEZE_VERSION:
        return None
    problem = _shape_problem(data)
    if problem:
        raise BuildError(f"freeze {problem}; rebuild with --refresh", rel)
    return Freeze(data["source"], data["inputs"], [o["outputs"] for o in data["outputs"]])


def _shape_problem(data: dict) -> str | None:
    """What is missing or mistyped in a freeze of the current format."""
    inputs, outputs = data.get("inputs"), data.get("outputs")
    if not isinstance(data.get("source"), str):
        return "lacks 'source'"
    if not isinstance(inputs, dict):
        return "lacks 'inputs'"
    for kind in ("chunks", *INPUT_KINDS):
        if kind not in inputs:
            return f"lacks inputs.{kind}"
    if not isinstance(inputs["chunks"], list) or not all(
        isinstance(c, dict) and isinstance(c.get("label"), str) and isinstance(c.get("sha"), str)
        for c in inputs["chunks"]
    ):
        return "has malformed inputs.chunks"
    for kind in ("files", "listings", "env", "versions"):
        if not isinstance(inputs[kind], dict):
            return f"has malformed inputs.{kind}"
    if not isinstance(outputs, list) or len(outputs) != len(inputs["chunks"]):
        return "has outputs that do not match its chunks"
    for o in outputs:
        records = o.get("outputs") if isinstance(o, dict) else None
        if not isinstance(records, list) or not all(
            isinstance(r, dict) and isinstance(r.get("text"), str) for r in records
        ):
            return "has malformed outputs"
        if any(CONTROL.search(r["text"]) for r in records):
            return f"output of chunk {o.get('chunk')!r} holds a control character"
    return None
