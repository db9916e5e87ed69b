# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""What every benchmark section shares: where it runs, its meta block, timers, copy ceilings.

`python build.py bench` runs on one CUDA GPU. `--smoke` runs the same code on the CPU at tiny
sizes (Triton in its interpreter, wall-clock timers) so that the results file's schema and its
readers are checked on any machine; its numbers mean nothing.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "DEVICE",
    "EPS",
    "SMOKE",
    "copy_ceiling",
    "copy_same_size",
    "environment",
    "gpu_slug",
    "graph_ms",
    "header",
    "host_cpu",
    "host_us",
    "median_ms",
    "spread",
    "strip_paths",
    "sync",
    "use_smoke",
    "version",
    "write_json",
    "write_text",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_common_head
import datetime
import json
import os
import platform
import re
import subprocess
import tempfile
import time

import torch

EPS = 1e-6
SMOKE = False  # set by bench.main(--smoke): CPU tensors, wall-clock timers, tiny sizes
DEVICE = "cuda"  # every tensor and model of the benchmark lives here ("cpu" under --smoke)


def use_smoke() -> None:
    """Switch every section to the CPU smoke mode (call before any kernel module is imported)."""
    global SMOKE, DEVICE
    os.environ["TRITON_INTERPRET"] = "1"
    SMOKE, DEVICE = True, "cpu"


def sync() -> None:
    if not SMOKE:
        torch.cuda.synchronize()


def gpu_slug(name: str) -> str:
    """'NVIDIA H200' -> 'h200': the first word of the device name after the vendor."""
    words = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w and w not in ("nvidia", "tesla")]
    return words[0] if words else "gpu"


def version(pkg: str) -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _v

    try:
        return _v(pkg)
    except PackageNotFoundError:
        return "not installed"


def host_cpu() -> str:
    """The host CPU's model name (host-time figures depend on it), or the platform's word for it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        return names[0]
    except (OSError, IndexError):
        return platform.processor() or "unknown"


def environment(command: str) -> dict:
    """GPU, host CPU, driver, library versions, date and command: the meta block of every section."""
    if SMOKE:
        gpu, sms, driver, cuda = "smoke-cpu", 1, "none", None
    else:
        props = torch.cuda.get_device_properties(0)
        gpu, sms, cuda = props.name, props.multi_processor_count, torch.version.cuda
        try:
            q = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
            driver = subprocess.run(q, capture_output=True, text=True, timeout=30).stdout.split()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            driver = "unknown"
    return {
        "gpu": gpu, "sm_count": sms, "cpu": host_cpu(), "driver": driver, "cuda": cuda, "torch": torch.__version__,
        "triton": version("triton"), "transformers": version("transformers"),
        "liger_kernel": version("liger-kernel"), "python": platform.python_version(),
        "date": datetime.date.today().isoformat(), "command": command,
    }  # fmt: skip


# %% src_literate/post2_triton_rmsnorm.pmd::bench_common_header
def header(meta: dict, title: str) -> str:
    """Comment header naming what a text artifact is and where it was measured."""
    return "\n".join([f"# {title}"] + [f"# {k}: {v}" for k, v in meta.items()]) + "\n"


def median_ms(fn, warmup: int = 25, rep: int = 100) -> float:
    """Median time of fn in ms (do_bench: L2 flushed before each call, warm-up not timed)."""
    if SMOKE:
        fn()
        t = time.perf_counter()
        fn()
        return (time.perf_counter() - t) * 1e3
    from triton.testing import do_bench

    return float(do_bench(fn, warmup=warmup, rep=rep, return_mode="median"))


def graph_ms(fn, warmup: int = 25, rep: int = 100, stream=None) -> float:
    """Median of do_bench over CUDA-graph replays of fn: GPU time with launch overhead left out."""
    if SMOKE:
        return median_ms(fn)
    s = stream or torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()  # warm-up on the capture stream
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        fn()
    torch.cuda.synchronize()
    return median_ms(g.replay, warmup, rep)


def spread(times: list) -> dict:
    """Median of repeated measurements with their min and max."""
    return {"ms": sorted(times)[len(times) // 2], "min": min(times), "max": max(times)}


def host_us(step, calls: int) -> float:
    """Host microseconds per call of step, back to back, the device never waited on (median of 3)."""
    for _ in range(10):
        step()
    sync()
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(calls):
            step()
        runs.append((time.perf_counter() - t) / calls * 1e6)
        sync()
    return sorted(runs)[1]


def copy_ceiling(nbytes: int = 2 << 30) -> dict:
    """Device-to-device copy of nbytes: the bandwidth ceiling, counting bytes read + written."""
    nbytes = 1 << 20 if SMOKE else nbytes
    src = torch.randn(nbytes // 2, device=DEVICE, dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src))
    return {"bytes": 2 * nbytes, "ms": ms, "gbps": 2 * nbytes / ms / 1e6}


# %% src_literate/post2_triton_rmsnorm.pmd::bench_common_copy_same_size
def copy_same_size(x, ceiling_gbps: float, passes: int = 2) -> dict:
    """Copy moving `passes` x-sized tensors (2: read + write x; 3: the backward's traffic)."""
    src = torch.zeros(x.numel() * passes // 2, dtype=x.dtype, device=x.device)
    dst = torch.empty_like(src)
    ms = graph_ms(lambda: dst.copy_(src))
    gbps = 2 * src.numel() * src.element_size() / ms / 1e6
    return {"rows": x.shape[0], "n": x.shape[1], "dtype": str(x.dtype).removeprefix("torch."),
            "passes": passes, "ms": ms, "gbps": gbps, "pct_copy": 100 * gbps / ceiling_gbps}  # fmt: skip


def strip_paths(text: str) -> str:
    """Replace this machine's folders (inductor cache, Python libraries, cwd, home) by tags."""
    import sysconfig

    cache = re.escape(tempfile.gettempdir()) + r"/torchinductor_[^/\s'\"]+"
    text = re.sub(cache, "<inductor_cache>", text)
    places = [(sysconfig.get_paths()[k], "<python_lib>") for k in ("purelib", "platlib", "stdlib")]
    places += [(os.getcwd(), "<cwd>"), (os.path.expanduser("~"), "<home>")]
    for path, tag in sorted(places, key=lambda p: -len(p[0])):  # longest first
        if len(path) > 1:
            text = text.replace(path, tag)
    return text


def write_text(path: str, text: str) -> str:
    """Write UTF-8 text through a temporary file and a rename: never a half-written file."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".bench-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; results files are shared and committed
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path


def write_json(obj: dict, path: str) -> str:
    """Indented UTF-8 JSON; NaN and infinities are refused (allow_nan=False), never written."""
    return write_text(path, json.dumps(obj, indent=1, ensure_ascii=False, allow_nan=False) + "\n")
