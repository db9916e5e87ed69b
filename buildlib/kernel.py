"""Running a source's chunks: in order, in one fresh Jupyter kernel, in a scratch folder.

nbclient drives the kernel: it applies each chunk's time limit and notices within a second when
the kernel process dies (`os._exit`, a segfault), which a plain wait for the reply never would.
The kernel runs in a scratch folder that mirrors the repository's inputs (`src_literate/`
without the freeze), with its own TMPDIR and connection file inside that folder, so a chunk can
neither overwrite `posts/` through a relative path nor leave files behind; the folder goes when
the run ends, however it ends. `kernel_audit` records what the execution read, for the freeze.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError
from .source import PACKAGE, Chunk, Source

MAX_OUTPUT_BYTES = 1_000_000  # per chunk: a post is read by people, a freeze is reviewed in diffs
FLOODED = f"printed more than {MAX_OUTPUT_BYTES / 1e6:g} MB"
FLOOD_GRACE_S = 10  # after the interrupt, how long a flooding chunk may take to stop
MIRRORED = "src_literate"  # what a chunk finds under its working folder
MIRROR_SKIP = ("_freeze", "__pycache__")
AUDIT_MODULE = "_qwen3_fusion_build_audit"
# ATen's kernels for one instruction set: AVX-512 and AVX2 machines then print the same figures
PINNED_CPU_CAPABILITY = "avx2"
# control characters a post may not carry (tab, newline and carriage return are text)
PASSED_ENV = frozenset({"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM"})
# the settings that change how the numbers are computed (threads, instruction set, Triton's
# interpreter, devices); a machine's caches, logs and hub settings stay out of the posts
PASSED_ENV_PREFIXES = (
    "OMP_", "MKL_", "OPENBLAS_", "KMP_", "GOMP_", "ATEN_", "TRITON_", "CUDA_", "NVIDIA_", "PYTORCH_",
)  # fmt: skip
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # IPython colours its tracebacks
CELL_LINE = re.compile(r"Cell In\[\d+\], line (\d+)")


@dataclass
class Execution:
    """What running a source gave: outputs per executed chunk, and the names of what it read."""

    outputs: list[list[dict]]
    read: dict


def executed_chunks(src: Source) -> list[Chunk]:
    """The chunks that run while weaving (a gpu= chunk is shown but not run on a CPU)."""
    return [c for c in src.chunks if not c.gpu]


def chunk_label(chunk: Chunk) -> str:
    return chunk.name or f"line {chunk.line}"


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def kernel_environment(stage: Path, scratch: Path, extra: dict[str, str] | None = None) -> dict:
    """The kernel's environment: the machine's plumbing, the numeric libraries' own settings
    (which the freeze records when a chunk reads them), and the build's fixed values.

    Everything else of the caller's environment (container names, certificates, shell state)
    stays out: a library that copies os.environ would otherwise make every machine's freeze
    differ."""
    env = {
        k: v
        for k, v in {**os.environ, **(extra or {})}.items()
        if k in PASSED_ENV or k.startswith(PASSED_ENV_PREFIXES)
    }
    env.update(
        LANG="C.UTF-8",  # text encoding and formatting the same on every machine
        LC_ALL="C.UTF-8",
        TZ="UTC",
        PYTHONPATH=str(stage),  # the staged package only: nothing the key does not hold
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",  # imports then open the .py file the key hashes
        PYTHONWARNINGS="ignore",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        TMPDIR=str(scratch / "tmp"),
        PWD=str(scratch / "work"),
    )
    if platform.machine().lower() in ("x86_64", "amd64"):
        env.setdefault("ATEN_CPU_CAPABILITY", PINNED_CPU_CAPABILITY)
    if not _cuda_available():
        env["TRITON_INTERPRET"] = "1"
    return env


def mirror_inputs(root: Path, work: Path) -> None:
    """The repository's inputs as a chunk sees them from its working folder."""
    work.mkdir(parents=True)
    if (root / MIRRORED).is_dir():
        shutil.copytree(
            root / MIRRORED, work / MIRRORED, ignore=shutil.ignore_patterns(*MIRROR_SKIP)
        )


def _client_class():
    """nbclient's client, stopping a chunk as soon as it prints past the limit."""
    import asyncio

    from nbclient import NotebookClient

    class Client(NotebookClient):
        printed = 0  # characters the current chunk printed
        flooded = False
        kill_timer = None  # set with flooded

        def output(self, outs, msg, display_id, cell_index):
            content = msg.get("content", {})
            self.printed += len(str(content.get("text", ""))) + len(
                str(content.get("data", {}).get("text/plain", ""))
            )
            if self.printed <= MAX_OUTPUT_BYTES:
                return super().output(outs, msg, display_id, cell_index)
            if not self.flooded:  # a loop that prints forever would fill the memory
                self.flooded = True
                asyncio.ensure_future(self.km.interrupt_kernel())
                # an interrupt that lands while the kernel sends its reply can lose the reply
                # (seen on a loaded machine: the chunk then "ran past" its limit); a kernel still
                # busy after a grace period is stopped, which ends the cell at once
                self.kill_timer = asyncio.get_event_loop().call_later(
                    FLOOD_GRACE_S, lambda: asyncio.ensure_future(self.km.shutdown_kernel(now=True))
                )
            return None

    return Client


def run_chunks(
    src: Source, root: Path, stage: Path, progress=None, env: dict[str, str] | None = None
) -> Execution:
    """Run the source's executed chunks in order in one fresh kernel (`env`: extra variables)."""
    import nbformat
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    runnable = executed_chunks(src)
    if not runnable:
        return Execution([], {})
    start = time.monotonic()
    if progress:
        progress(f"{src.rel}: executing {len(runnable)} chunks")
    with tempfile.TemporaryDirectory(prefix="qwen3-fusion-run-") as tmp:
        scratch = Path(tmp)
        work = scratch / "work"
        mirror_inputs(root, work)
        (scratch / "tmp").mkdir()
        shutil.copyfile(Path(__file__).with_name("kernel_audit.py"), stage / f"{AUDIT_MODULE}.py")
        folders = [str(root.resolve()), str(work.resolve()), str(stage.resolve() / PACKAGE)]
        begin = f"import {AUDIT_MODULE} as _audit\n_audit.start(*{folders!r})\ndel _audit"
        codes = [
            begin,
            *(src.visible_code(c) for c in runnable),
            f"import {AUDIT_MODULE}\n{AUDIT_MODULE}.report()",
        ]
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in codes])
        client = _client_class()(
            nb,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": str(work)}},
        )
        client.km = client.create_kernel_manager()
        client.km.connection_file = str(scratch / "kernel.json")
        outputs: list[list[dict]] = []
        # what the kernel process itself prints (its start-up warnings) stays out of the terminal
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        with client.setup_kernel(env=kernel_environment(stage, scratch, env), **quiet):
            for k, cell in enumerate(nb.cells):
                chunk = runnable[k - 1] if 0 < k <= len(runnable) else None
                client.timeout = chunk.timeout if chunk else 120
                client.printed = 0
                t0 = time.monotonic()
                failed = None
                try:
                    client.execute_cell(cell, k)
                except CellTimeoutError:
                    failed = (
                        f"ran past its {client.timeout} s limit (raise it with timeout=<seconds>)"
                    )
                except DeadKernelError:
                    failed = f"the kernel process died ({_exit_of(client)}) while it ran"
                if client.flooded:  # however the cell ended: the grace timer may have stopped it
                    client.kill_timer.cancel()
                    raise _stopped(src, chunk, FLOODED)
                if failed:
                    raise _stopped(src, chunk, failed)
                if chunk is None:
                    _raise_on_error(cell.outputs, src, None)
                    continue
                outputs.append(outputs_of(chunk, cell.outputs, src))
                if progress:
                    progress(
                        f"  [{k}/{len(runnable)}] {chunk_label(chunk)} ({src.rel}:{chunk.line})"
                        f" {time.monotonic() - t0:.1f} s"
                    )
        read = json.loads(_stdout(nb.cells[-1].outputs).strip().split("\n")[-1])
    if progress:
        progress(f"{src.rel}: executed in {time.monotonic() - start:.1f} s")
    return Execution(outputs, read)


def _stopped(src: Source, chunk: Chunk | None, why: str) -> BuildError:
    if chunk is None:
        return BuildError(f"the build's own cell failed: {why}", src.rel)
    return BuildError(f"chunk {chunk_label(chunk)} stopped: {why}", src.rel, chunk.line)


def _exit_of(client) -> str:
    """How the kernel process ended: 'exit code 0', 'signal SIGSEGV'."""
    import signal

    process = getattr(getattr(client.km, "provisioner", None), "process", None)
    code = process.poll() if process is not None else None
    if code is None:
        return "no exit status"
    return f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"


def _stdout(outputs: list) -> str:
    return "".join(o.get("text", "") for o in outputs if o.get("name") == "stdout")


def _raise_on_error(outputs: list, src: Source, chunk: Chunk | None) -> None:
    """An exception in a chunk fails the build at the line inside the chunk that raised it."""
    for out in outputs:
        if out.get("output_type") != "error":
            continue
        tb = ANSI.sub("", "\n".join(out.get("traceback", [])))
        if chunk is None:
            raise BuildError(
                f"the build's own cell raised {out.get('ename')}: {tb[-300:]}", src.rel
            )
        lines = CELL_LINE.findall(tb)
        line = chunk.line
        if lines:
            line = chunk.line + src.code_line(chunk, int(lines[-1]))
        value = " ".join(str(out.get("evalue", "")).split())[:300]
        raise BuildError(
            f"chunk {chunk_label(chunk)} raised {out.get('ename')}"
            + (f": {value}" if value else ""),
            src.rel,
            line,
        )


def outputs_of(chunk: Chunk, cell: list, src: Source) -> list[dict]:
    """Keep stdout and results; refuse an exception, an oversized output, control characters."""
    _raise_on_error(cell, src, chunk)
    pieces: list[str] = []
    for out in cell:
        kind = out.get("output_type")
        if kind == "stream" and out.get("name") == "stdout":
            pieces.append(out["text"])
        elif kind in ("execute_result", "display_data"):
            text = out.get("data", {}).get("text/plain")
            if text is not None:
                pieces.append(text + "\n")
    # one piece: how a kernel splits stdout is not part of the output
    merged = "".join(pieces)
    size = len(merged.encode("utf-8"))
    if size > MAX_OUTPUT_BYTES:
        raise _stopped(src, chunk, f"printed more than {MAX_OUTPUT_BYTES / 1e6:g} MB")
    bad = CONTROL.search(merged)
    if bad:
        raise BuildError(
            f"chunk {chunk_label(chunk)} printed the control character {bad.group()!r};"
            " a post holds text only",
            src.rel,
            chunk.line,
        )
    return [{"text": merged}] if merged else []
