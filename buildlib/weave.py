"""Weaving: a source's outputs (from its freeze, or by running its chunks) turned into Markdown.

`posts` executes a source only when its freeze (`freeze.py`) no longer matches what the
execution read (or on `--refresh`); `check` never executes and says which input changed. Chunks
run in a fresh Jupyter kernel (`kernel.py`). The formatting is ours, so that fences carry their
language and the same freeze always gives the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .errors import BuildError
from .freeze import (
    FREEZE_DIR,
    Freeze,
    chunk_key,
    current_key,
    input_key,
    read_freeze,
    stale_inputs,
)
from .kernel import run_chunks
from .source import DATA_LINKS, Chunk, Source

GPU_NOTE = "> **需要 CUDA GPU**：{why}"


def frozen_records(src: Source, freeze: Freeze) -> list[dict]:
    """One record per chunk of the source, in order (a gpu= chunk has no outputs)."""
    it = iter(freeze.records)
    return [{"line": c.line, "outputs": [] if c.gpu else next(it)} for c in src.chunks]


def execute(
    src: Source,
    root: Path,
    package: dict[str, str],
    stage: Path,
    refresh: bool = False,
    progress=None,
) -> tuple[list[dict], Freeze, bool]:
    """Outputs of every chunk: from the freeze when nothing it read changed, else by running them.

    Returns (records, freeze, executed?).
    """
    freeze = None if refresh else read_freeze(root, src)
    if freeze is not None:
        why = stale_inputs(freeze.inputs, current_key(src, freeze.inputs, root, package))
        if not why:
            if progress:
                progress(f"{src.rel}: frozen outputs are current, not executed")
            return frozen_records(src, freeze), freeze, False
        if progress:
            progress(f"{src.rel}: executing again: {'; '.join(why)}")
    run = run_chunks(src, root, stage, progress)
    inputs = {"chunks": chunk_key(src), **input_key(run.read, root, package)}
    freeze = Freeze(source=src.rel, inputs=inputs, records=run.outputs)
    return frozen_records(src, freeze), freeze, True


def require_frozen(src: Source, root: Path, package: dict[str, str]) -> tuple[list[dict], Freeze]:
    """The freeze of `src`, or a BuildError saying which input no longer matches it."""
    freeze = read_freeze(root, src)
    rel = f"{FREEZE_DIR}/{src.slug}.json"
    if freeze is None:
        raise BuildError(f"no frozen outputs for {src.rel}; run `python build.py posts`", rel)
    why = stale_inputs(freeze.inputs, current_key(src, freeze.inputs, root, package))
    if why:
        raise BuildError(
            f"frozen outputs of {src.rel} are stale ({'; '.join(why)}); run `python build.py posts`",
            rel,
        )
    return frozen_records(src, freeze), freeze


def stage_package(package: dict[str, str], stage: Path, root: Path) -> None:
    """Write the tangled package (path under generated/ -> text) into `stage` for a kernel, with
    its data folders linked from the repository at `root` as generated/ links them."""
    for rel, text in package.items():
        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
        (stage / rel).write_text(text, encoding="utf-8")
    for rel, target in DATA_LINKS.items():
        if (root / target).is_dir():  # a project without that data has nothing to link
            (stage / rel).symlink_to(root / target, target_is_directory=True)


# --- formatting -----------------------------------------------------------------------------


def format_body(src: Source, records: list[dict], prose) -> str:
    """Interleave prose (passed through `prose(text, first_line)`) with code and output."""
    lines = src.body.split("\n")
    pieces: list[str] = []
    pos = 0
    for chunk, rec in zip(src.chunks, records, strict=True):
        start = chunk.line - 1
        pieces.append(prose("\n".join(lines[pos:start]), pos + 1))
        pieces.append(format_chunk(src, chunk, rec["outputs"]))
        pos = chunk.end  # the line after the closing fence
    pieces.append(prose("\n".join(lines[pos:]), pos + 1))
    # pieces are joined by one blank line; blank lines inside code stay as written
    return "\n\n".join(p.strip("\n") for p in pieces if p.strip()) + "\n"


def format_chunk(src: Source, chunk: Chunk, outputs: list[dict]) -> str:
    out: list[str] = []
    if chunk.gpu and chunk.visibility != "hidden":
        out.append(GPU_NOTE.format(why=chunk.gpu))
    code = f"```python\n{src.visible_code(chunk)}\n```"
    if chunk.visibility == "shown":
        out.append(code)
    elif chunk.visibility == "folded":
        # GitHub-flavoured fold: blank lines around the fence so the Markdown inside renders
        out.append(f"<details>\n<summary>{chunk.summary.strip()}</summary>\n\n{code}\n\n</details>")
    text = "".join(o["text"] for o in outputs)
    if text.strip() and chunk.results == "verbatim":
        out.append(f"```text\n{text.rstrip()}\n```")
    elif text.strip() and chunk.results == "raw":
        out.append(text.strip("\n"))
    return "\n\n".join(out)


def print_progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
