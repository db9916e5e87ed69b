"""File writing that never leaves a half-written output behind."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def _temp_sibling(path: Path) -> tuple[int, str]:
    """A temporary file beside `path`, with the mode open() would give it (mkstemp makes 0600)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    return fd, tmp


def write_atomic(path: Path, text: str) -> bool:
    """Write `text` to `path` through a temporary file and a rename; return True if the bytes changed."""
    data = text.encode("utf-8")
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_sibling(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def commit_tree(root: Path, files: dict[str, str], managed_suffixes: tuple[str, ...]) -> list[str]:
    """Make the files under `root` with the given suffixes exactly `files` (relative path -> text).

    Every file is first written to a temporary sibling; renames happen only once all writes
    succeeded. Stale managed files are removed. Returns the relative paths that changed.
    """
    changed: list[str] = []
    staged: list[tuple[str, Path]] = []
    try:
        for rel, text in sorted(files.items()):
            dest = root / rel
            data = text.encode("utf-8")
            if dest.exists() and dest.read_bytes() == data:
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = _temp_sibling(dest)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            staged.append((rel, Path(tmp)))
    except BaseException:
        for _, tmp in staged:
            tmp.unlink(missing_ok=True)
        raise
    for rel, tmp in staged:
        os.replace(tmp, root / rel)
        changed.append(rel)
    for path in sorted(existing_files(root, managed_suffixes)):
        rel = path.relative_to(root).as_posix()
        if rel not in files:
            path.unlink()
            changed.append(rel)
    return changed


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
