"""Weaving: run a source's chunks with Pweave and turn prose, code and output into Markdown.

Pweave executes the chunks in a fresh Jupyter kernel (one per source, in document order); the
formatting is ours, so that fences carry their language, output goes into `text` fences and the
same input always gives the same bytes. Execution results are cached, keyed by everything that
can change them, so an unchanged source is not run again.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from .errors import BuildError
from .fsutil import sha256_text, write_atomic
from .source import Chunk, Source

CACHE_VERSION = "1"
VERSIONED_PACKAGES = ("torch", "triton", "transformers", "Pweave", "ipython", "numpy")
GPU_NOTE = "> **需要 GPU**：{why}（构建本文的 CPU 机器上未执行这段代码）"
# ANSI colour codes that IPython puts into tracebacks
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def package_versions() -> dict[str, str]:
    """Versions of the packages whose behaviour shows in the woven output."""
    out = {"python": sys.version.split()[0]}
    for name in VERSIONED_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def cache_key(src: Source, root: Path, stage: Path) -> str:
    """Everything an execution depends on: the source, results files, package code, versions."""
    parts: list[str | bytes] = [CACHE_VERSION, src.body, json.dumps(src.meta, sort_keys=True)]
    for base in (root / "src_literate" / "results", stage):
        if base.exists():
            for p in sorted(base.rglob("*")):
                if p.is_file() and "__pycache__" not in p.parts:
                    parts += [p.relative_to(base).as_posix(), p.read_bytes()]
    parts.append(json.dumps(package_versions(), sort_keys=True))
    parts.append(os.environ.get("TRITON_INTERPRET", ""))
    return sha256_text(*parts)


def execute(src: Source, root: Path, stage: Path, use_cache: bool = True) -> list[dict]:
    """Run the source's chunks (or read a cached run); one record per chunk, in order."""
    cache_dir = root / ".cache" / "weave"
    key = cache_key(src, root, stage)
    cached = cache_dir / f"{src.slug}-{key[:32]}.json"
    if use_cache and cached.exists():
        return json.loads(cached.read_text(encoding="utf-8"))
    records = _run_pweave(src, root, stage, cache_dir)
    for old in cache_dir.glob(f"{src.slug}-*.json"):
        old.unlink()
    write_atomic(cached, json.dumps(records, ensure_ascii=False, indent=1))
    return records


def _run_pweave(src: Source, root: Path, stage: Path, cache_dir: Path) -> list[dict]:
    import pweave  # imported late: only weaving needs Jupyter

    cache_dir.mkdir(parents=True, exist_ok=True)
    runnable = [c for c in src.chunks if not c.gpu]
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        # Pweave reads a file; give it only what runs, each chunk as the reader sees it
        doc = "".join(f"```python\n{src.visible_code(c)}\n```\n\n" for c in runnable)
        pmd = Path(tmp) / f"{src.slug}.pmd"
        pmd.write_text(doc or "no code\n", encoding="utf-8")
        env = _kernel_env(stage)
        with _patched_environ(env), contextlib.redirect_stdout(io.StringIO()):
            web = pweave.Pweb(str(pmd), doctype="markdown", output=str(root / "woven.md"))
            web.run()
    executed = [c for c in web.executed if c["type"] == "code"]
    if len(executed) != len(runnable):
        raise BuildError("Pweave returned a different number of chunks than were sent", src.rel)
    by_line = {c.line: outputs_of(c, rec, src) for c, rec in zip(runnable, executed)}
    return [{"line": c.line, "outputs": by_line.get(c.line, [])} for c in src.chunks]


def _kernel_env(stage: Path) -> dict[str, str]:
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(stage), os.environ.get("PYTHONPATH")]))}
    env["PYTHONHASHSEED"] = "0"
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    try:
        import torch

        if not torch.cuda.is_available():
            env["TRITON_INTERPRET"] = "1"
    except ImportError:
        pass
    return env


@contextlib.contextmanager
def _patched_environ(values: dict[str, str]):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def outputs_of(chunk: Chunk, record: dict, src: Source) -> list[dict]:
    """Keep stdout and results; an exception in a chunk fails the build at the chunk's line."""
    outs: list[dict] = []
    for out in record.get("result") or []:
        kind = out.get("output_type")
        if kind == "error":
            tb = ANSI.sub("", "\n".join(out.get("traceback", [])))
            last = tb.strip().split("\n")[-1] if tb.strip() else out.get("evalue", "")
            raise BuildError(f"chunk raised {out.get('ename')}: {last}", src.rel, chunk.line)
        if kind == "stream" and out.get("name") == "stdout":
            outs.append({"text": out["text"]})
        elif kind in ("execute_result", "display_data"):
            text = out.get("data", {}).get("text/plain")
            if text is not None:
                outs.append({"text": text + "\n"})
    return outs


def format_body(src: Source, records: list[dict], prose) -> str:
    """Interleave prose (passed through `prose(text, first_line)`) with code and output."""
    lines = src.body.split("\n")
    pieces: list[str] = []
    pos = 0
    for chunk, rec in zip(src.chunks, records):
        start = chunk.line - 1
        pieces.append(prose("\n".join(lines[pos:start]), pos + 1))
        pieces.append(_format_chunk(src, chunk, rec["outputs"]))
        pos = start + chunk.code.count("\n") + 3  # header, code lines, closing fence
    pieces.append(prose("\n".join(lines[pos:]), pos + 1))
    # pieces are joined by one blank line; blank lines inside code stay as written
    return "\n\n".join(p.strip("\n") for p in pieces if p.strip()) + "\n"


def _format_chunk(src: Source, chunk: Chunk, outputs: list[dict]) -> str:
    out: list[str] = []
    if chunk.gpu:
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
