"""Weaving: run a source's chunks and turn prose, code and output into Markdown.

Execution (the model: Quarto's `freeze`). Chunk outputs are committed per source in
`src_literate/_freeze/<slug>.json`, keyed by exactly what the execution sees: the code of the
chunks that run, in order; the tangled modules they import; the results files they name; the
versions of torch, triton and transformers. `posts` executes a source only when that key changed
(or on `--refresh`); `check` never executes and says which input no longer matches.

Chunks run one by one in a fresh Jupyter kernel process started through Pweave's Jupyter
processor, so each chunk has a time limit, the build can print its progress, and whatever the
code prints on stderr stays out of the terminal. The formatting is ours, so that fences carry
their language and the same freeze always gives the same bytes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .errors import BuildError
from .fsutil import sha256_text
from .source import PACKAGE, Chunk, Source

FREEZE_VERSION = 2
FREEZE_DIR = "src_literate/_freeze"
RESULTS_DIR = "src_literate/results"
KEY_PACKAGES = ("torch", "triton", "transformers")
GPU_NOTE = "> **需要 GPU**：{why}（构建本文的 CPU 机器上未执行这段代码）"
# ANSI colour codes that IPython puts into tracebacks
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PACKAGE_REF = re.compile(rf"(?<![\w.]){PACKAGE}\.(\w+)")  # not torch.ops.qwen3_fusion.<op>
LISTING = re.compile(r"\.(?:r?glob|iterdir)\(|\b(?:os\.listdir|os\.scandir|glob\.glob)\(")
# `from qwen3_fusion import x` or `import qwen3_fusion`: may reach any module
BARE_IMPORT = re.compile(
    rf"^\s*(?:from\s+{PACKAGE}\s+import\b|import\s+{PACKAGE}\s*(?:$|as\b|,))", re.M
)


def package_versions(names=KEY_PACKAGES) -> dict[str, str]:
    """Installed versions of the packages whose behaviour shows in executed output."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


# --- the key: what an execution sees -------------------------------------------------------


def executed_chunks(src: Source) -> list[Chunk]:
    """The chunks that run while weaving (a gpu= chunk is shown but not run on a CPU)."""
    return [c for c in src.chunks if not c.gpu]


def chunk_label(chunk: Chunk) -> str:
    return chunk.name or f"line {chunk.line}"


def imported_modules(code: str, package: dict[str, str]) -> set[str]:
    """Tangled files the code can reach through `qwen3_fusion...` references, transitively.

    `qwen3_fusion.<module>` reaches that module; a bare `qwen3_fusion` (as in
    `from qwen3_fusion import x`) may reach any of them.
    """
    by_module = {
        rel.removeprefix(f"{PACKAGE}/").removesuffix(".py").replace("/", "."): rel
        for rel in package
    }
    seen: set[str] = set()
    todo = [code]
    while todo:
        text = todo.pop()
        names = [m.group(1) for m in PACKAGE_REF.finditer(text)]
        if BARE_IMPORT.search(text):
            names = list(by_module)
        for name in names:
            # a name that is no module (a sub-package) may reach any module
            targets = [name] if name in by_module else list(by_module)
            for t in targets:
                rel = by_module[t]
                if rel not in seen:
                    seen.add(rel)
                    todo.append(package[rel])
    return seen


def execution_inputs(src: Source, package: dict[str, str], root: Path) -> dict:
    """Everything an execution of `src` depends on, each input hashed on its own."""
    runnable = executed_chunks(src)
    codes = [src.visible_code(c) for c in runnable]
    all_code = "\n".join(codes)
    modules = imported_modules(all_code, package)
    seen_code = all_code + "\n".join(package[m] for m in sorted(modules))
    results = {}
    folder = root / RESULTS_DIR
    # code that lists the folder (glob, iterdir, listdir) may read any of its files
    lists = bool(LISTING.search(seen_code)) and "results" in seen_code
    for p in sorted(folder.iterdir()) if folder.is_dir() else []:
        if p.is_file() and (lists or p.name in seen_code or f'"{p.stem}"' in seen_code):
            results[p.name] = sha256_text(p.read_bytes())[:16]
    return {
        "chunks": [
            {"label": chunk_label(c), "sha": sha256_text(code)[:16]}
            for c, code in zip(runnable, codes, strict=True)
        ],
        "package": {m: sha256_text(package[m])[:16] for m in sorted(modules)},
        "results": results,
        "versions": package_versions(),
    }


def stale_inputs(frozen: dict, now: dict) -> list[str]:
    """Why a frozen execution no longer matches its inputs (empty when it does)."""
    why: list[str] = []
    old_chunks, new_chunks = frozen.get("chunks", []), now["chunks"]
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
    for kind in ("package", "results"):
        old, new = frozen.get(kind, {}), now[kind]
        for name in sorted(set(old) | set(new)):
            if old.get(name) != new.get(name):
                state = (
                    "changed"
                    if name in old and name in new
                    else "added"
                    if name in new
                    else "dropped"
                )
                why.append(
                    f"{'generated/' if kind == 'package' else RESULTS_DIR + '/'}{name} {state}"
                )
    for name, version in now["versions"].items():
        was = frozen.get("versions", {}).get(name)
        if was != version:
            why.append(f"{name} {was} -> {version}")
    return why


# --- the freeze -----------------------------------------------------------------------------


@dataclass
class Freeze:
    """A source's committed execution: its inputs and one record of outputs per executed chunk."""

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


def freeze_path(root: Path, src: Source) -> Path:
    return root / FREEZE_DIR / f"{src.slug}.json"


def read_freeze(root: Path, src: Source) -> Freeze | None:
    path = freeze_path(root, src)
    if not path.exists():
        return None
    rel = path.relative_to(root).as_posix()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise BuildError(f"freeze is not JSON ({e.msg}); rebuild with --refresh", rel, e.lineno)
    if not isinstance(data, dict) or data.get("version") != FREEZE_VERSION:
        return None
    return Freeze(
        source=data["source"],
        inputs=data["inputs"],
        records=[o["outputs"] for o in data["outputs"]],
    )


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
    """Outputs of every chunk: from the freeze when its key matches, else by running them.

    Returns (records, freeze, executed?).
    """
    inputs = execution_inputs(src, package, root)
    freeze = None if refresh else read_freeze(root, src)
    if freeze is not None and not stale_inputs(freeze.inputs, inputs):
        if progress:
            progress(f"{src.rel}: frozen outputs are current, not executed")
        return frozen_records(src, freeze), freeze, False
    outputs = run_chunks(src, root, stage, progress)
    freeze = Freeze(source=src.rel, inputs=inputs, records=outputs)
    return frozen_records(src, freeze), freeze, True


def require_frozen(src: Source, root: Path, package: dict[str, str]) -> tuple[list[dict], Freeze]:
    """The freeze of `src`, or a BuildError saying which input no longer matches it."""
    freeze = read_freeze(root, src)
    rel = f"{FREEZE_DIR}/{src.slug}.json"
    if freeze is None:
        raise BuildError(f"no frozen outputs for {src.rel}; run `python build.py posts`", rel)
    why = stale_inputs(freeze.inputs, execution_inputs(src, package, root))
    if why:
        raise BuildError(
            f"frozen outputs of {src.rel} are stale ({'; '.join(why)}); run `python build.py posts`",
            rel,
        )
    return frozen_records(src, freeze), freeze


# --- running chunks -------------------------------------------------------------------------


def stage_package(package: dict[str, str], stage: Path) -> None:
    """Write the tangled package (path under generated/ -> text) into `stage` for a kernel."""
    for rel, text in package.items():
        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
        (stage / rel).write_text(text, encoding="utf-8")


def kernel_env(stage: Path) -> dict[str, str]:
    """The environment of the kernel process: the staged package first on the path."""
    env = {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(stage), os.environ.get("PYTHONPATH")])),
        "PYTHONHASHSEED": "0",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "PYTHONWARNINGS": "ignore",
    }
    if not _cuda_available():
        env["TRITON_INTERPRET"] = "1"
    return env


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


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


def run_chunks(src: Source, root: Path, stage: Path, progress=None) -> list[list[dict]]:
    """Run the source's executed chunks in order in one fresh kernel; outputs per chunk."""
    from pweave.processors.jupyter import JupyterProcessor  # only executing needs Jupyter

    runnable = executed_chunks(src)
    if not runnable:
        return []
    start = time.monotonic()
    if progress:
        progress(f"{src.rel}: executing {len(runnable)} chunks")
    with tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / f"{src.slug}.pmd"
        doc.write_text("", encoding="utf-8")
        with _patched_environ(kernel_env(stage)):
            proc = JupyterProcessor(
                [], "python3", str(doc), False, tmp, str(root), embed_kernel=False
            )
        try:
            outputs = []
            for k, chunk in enumerate(runnable, 1):
                t0 = time.monotonic()
                try:
                    cell = run_cell(proc.kc, src.visible_code(chunk), chunk.timeout)
                except TimeoutError:
                    raise BuildError(
                        f"chunk {chunk_label(chunk)} stopped: ran past its {chunk.timeout} s limit"
                        " (raise it with timeout=<seconds>)",
                        src.rel,
                        chunk.line,
                    ) from None
                outputs.append(outputs_of(chunk, cell, src))
                if progress:
                    progress(
                        f"  [{k}/{len(runnable)}] {chunk_label(chunk)} ({src.rel}:{chunk.line})"
                        f" {time.monotonic() - t0:.1f} s"
                    )
        finally:
            with contextlib.suppress(Exception):
                proc.kc.stop_channels()
            with contextlib.suppress(Exception):
                proc.km.shutdown_kernel(now=True)
    if progress:
        progress(f"{src.rel}: executed in {time.monotonic() - start:.1f} s")
    return outputs


def run_cell(client, code: str, timeout: float) -> list[dict]:
    """Execute one cell and collect its outputs as nbformat dicts.

    Pweave 0.30.3's own `run_cell` calls `get_msg(block=...)`, which jupyter_client 8 removed;
    `execute_interactive` is the client's supported way, with a time limit.
    """
    from nbformat.v4 import output_from_msg

    outs: list[dict] = []

    def hook(msg: dict) -> None:
        kind = msg["msg_type"]
        if kind in ("stream", "execute_result", "display_data", "error"):
            outs.append(dict(output_from_msg(msg)))
        elif kind == "clear_output":
            outs.clear()

    client.execute_interactive(
        code, store_history=False, allow_stdin=False, timeout=timeout, output_hook=hook
    )
    return outs


def outputs_of(chunk: Chunk, cell: list, src: Source) -> list[dict]:
    """Keep stdout and results; an exception in a chunk fails the build at the chunk's line."""
    outs: list[dict] = []
    for out in cell or []:
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
    # merge consecutive stream pieces: how a kernel splits stdout is not part of the output
    merged = "".join(o["text"] for o in outs)
    return [{"text": merged}] if merged else []


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
