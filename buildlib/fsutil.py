"""Writing the build's outputs as one commit: all of them new, or all of them as they were.

Every changed file is first written in full to a temporary sibling (`.<name>.<random>.tmp`);
a full disk, a read-only folder or a signal in that phase removes the temporaries and leaves
every output untouched. Then the renames (and the removals of outputs no source writes any
more) run with SIGINT and SIGTERM held, so no signal lands between two renames. A file the
build did not write (no generated marker) is never removed: the commit refuses instead.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BuildError
from .interrupt import raise_if_interrupted, signals_blocked

TEMP_RE = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")  # what mkstemp gives _temp_sibling


@dataclass
class Tree:
    """A folder of outputs: the files it must hold, and how the build's own files are known."""

    base: Path
    files: dict[str, str]  # relative path -> text
    suffix: str
    marker: str  # text every file the build wrote contains


@dataclass
class Commit:
    root: Path
    staged: list[tuple[Path, Path]] = field(default_factory=list)  # (temporary, destination)
    removals: list[Path] = field(default_factory=list)

    def rel(self, path: Path) -> str:
        return (
            path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)
        )

    def stage(self, dest: Path, text: str) -> bool:
        """Write `text` beside `dest`; False when `dest` already holds exactly that."""
        data = text.encode("utf-8")
        if dest.is_file() and dest.read_bytes() == data:
            return False
        if dest.exists() and not dest.is_file():  # found now, not by a rename half-way through
            raise BuildError("is in the way of an output: it is not a file", self.rel(dest))
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = _temp_sibling(dest)
        except OSError as e:
            raise BuildError(f"cannot write: {e.strerror}", self.rel(dest.parent)) from None
        self.staged.append((Path(tmp), dest))
        try:
            with os.fdopen(fd, "wb") as f:
                _write(f, data)
        except OSError as e:
            raise BuildError(f"cannot write: {e.strerror}", self.rel(dest)) from None
        return True

    def plan_tree(self, tree: Tree) -> None:
        """Stage every file of the tree; mark the build's stale files for removal, refuse others."""
        self.removals += stray_temporaries(tree.base)  # before ours exist
        for rel, text in sorted(tree.files.items()):
            self.stage(tree.base / rel, text)
        for path in sorted(existing_files(tree.base, (tree.suffix,))):
            if path.relative_to(tree.base).as_posix() in tree.files:
                continue
            if tree.marker not in path.read_text(encoding="utf-8", errors="replace"):
                raise BuildError(
                    f"not written by the build, and no source writes it; move it out of"
                    f" {self.rel(tree.base)}/ (the build removes only files it wrote)",
                    self.rel(path),
                )
            self.removals.append(path)

    def abort(self) -> None:
        for tmp, _ in self.staged:
            tmp.unlink(missing_ok=True)
        self.staged.clear()

    def apply(self) -> list[str]:
        """Rename every staged file into place and remove the stale ones, signals held."""
        raise_if_interrupted()
        changed: list[str] = []
        with signals_blocked():
            for tmp, dest in self.staged:
                os.replace(tmp, dest)
                changed.append(f"wrote {self.rel(dest)}")
            for path in self.removals:
                path.unlink(missing_ok=True)
                changed.append(f"removed {self.rel(path)}")
        self.staged.clear()
        return changed


def _write(f, data: bytes) -> None:
    f.write(data)


def commit(root: Path, trees: list[Tree], singles: dict[Path, str] | None = None) -> list[str]:
    """Make the trees (and single files) exactly as given, in one commit; 'wrote/removed <path>'."""
    work = Commit(root)
    try:
        for tree in trees:
            work.plan_tree(tree)
        for path, text in (singles or {}).items():
            work.stage(path, text)
        return work.apply()
    finally:
        work.abort()


def _temp_sibling(path: Path) -> tuple[int, str]:
    """A temporary file beside `path`, with the mode open() would give it (mkstemp makes 0600)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    return fd, tmp


def stray_temporaries(base: Path) -> list[Path]:
    """Temporary files an earlier build left behind (killed with SIGKILL, power lost)."""
    if not base.is_dir():
        return []
    return sorted(p for p in base.rglob(".*.tmp") if p.is_file() and TEMP_RE.match(p.name))


def write_atomic(path: Path, text: str) -> bool:
    """Write one file through a temporary file and a rename; True if the bytes changed."""
    return bool(commit(path.parent, [], {path: text}))


def existing_files(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Files under `root` ending in one of `suffixes`, caches excluded."""
    if not root.exists():
        return []
    return [
        p
        for p in root.rglob("*")
        if p.is_file() and p.name.endswith(suffixes) and "__pycache__" not in p.parts
    ]


def sha256_text(*parts: str | bytes) -> str:
    """A hex digest over several pieces, each length-prefixed so that boundaries matter."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(str(len(data)).encode() + b":" + data)
    return h.hexdigest()
