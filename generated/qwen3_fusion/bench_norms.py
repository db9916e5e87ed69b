# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""RMSNorm implementations side by side: ours and its peers, timed per shape and pass.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "HOST_IMPLS",
    "MAX_AUTOTUNE_SHAPE",
    "PEERS",
    "RMSNORM_SHAPES",
    "SMOKE_SHAPES",
    "host_table",
    "liger_rmsnorm_class",
    "make_norm",
    "relative_error",
    "rmsnorm_bytes",
    "rmsnorm_inputs",
    "rmsnorm_reference",
    "time_all_rmsnorm",
    "time_passes",
    "time_rmsnorm",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_norms_head
import contextlib
import time

import torch
import torch.nn.functional as F

from qwen3_fusion import bench_common as bc

# (rows, N, dtype): Qwen3 hidden sizes with 16384 tokens, the q_norm shape (tokens x heads
# over head_dim 128), one fp16 and one fp32 row; in order of interest
RMSNORM_SHAPES = [
    (16384, 1024, torch.bfloat16),  # Qwen3-0.6B
    (16384, 2048, torch.bfloat16),  # 1.7B
    (16384, 2560, torch.bfloat16),  # 4B
    (16384, 4096, torch.bfloat16),  # 8B
    (16384, 5120, torch.bfloat16),  # 14B, 32B
    (262144, 128, torch.bfloat16),  # q_norm: 16384 tokens x 16 heads x head_dim 128
    (16384, 4096, torch.float16),
    (16384, 4096, torch.float32),
]
SMOKE_SHAPES = [(64, 128, torch.bfloat16), (48, 96, torch.float32)]
MAX_AUTOTUNE_SHAPE = (16384, 2048, torch.bfloat16)  # the one shape compiled with max-autotune
# liger: in_place=False (dy kept); liger_inplace: Liger's default in_place=True (dx written into dy)
PEERS = ["hf_eager", "torch_compile", "f_rms_norm", "liger", "liger_inplace", "liger_cute", "quack"]
HOST_IMPLS = ["ours", "hf_eager", "f_rms_norm", "liger", "liger_inplace"]


def liger_rmsnorm_class(in_place: bool = False):
    """LigerRMSNorm with Qwen3RMSNorm's signature: casting_mode='llama'; in_place as given."""
    from liger_kernel.transformers.rms_norm import LigerRMSNorm

    class LigerQwen3RMSNorm(LigerRMSNorm):
        def __init__(self, hidden_size, eps=1e-6):
            super().__init__(hidden_size, eps=eps, casting_mode="llama", in_place=in_place)

    return LigerQwen3RMSNorm


def _function_norm(fn, n: int, weight: torch.Tensor):
    w = torch.nn.Parameter(weight.clone())
    return (lambda x: fn(x, w)), w


def make_norm(impl: str, n: int, weight: torch.Tensor):
    """An RMSNorm callable of the named implementation with the given weight -> (fn, weight)."""
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    if impl == "f_rms_norm":
        return _function_norm(lambda x, w: F.rms_norm(x, (n,), w, bc.EPS), n, weight)
    if impl == "liger_cute":
        import cutlass  # noqa: F401 - the CuTe DSL; the ImportError names what is missing
        from liger_kernel.ops.cutedsl.ops.rms_norm import LigerRMSNormFunction as CuteRMSNorm

        # the Function apply_liger_kernel_to_qwen3 runs under LIGER_KERNEL_IMPL=cutedsl (Liger 0.8.5),
        # with Qwen3's casting and dy kept: (x, w, eps, offset, casting_mode, in_place, row_mode)
        return _function_norm(
            lambda x, w: CuteRMSNorm.apply(x, w, bc.EPS, 0.0, "llama", False, None), n, weight
        )
    if impl == "quack":
        from quack import rmsnorm as quack_rmsnorm

        return _function_norm(lambda x, w: quack_rmsnorm(x, w, eps=bc.EPS), n, weight)
    if impl.startswith(("hf_eager", "torch_compile")):
        mod = Qwen3RMSNorm(n, eps=bc.EPS)
    elif impl in ("liger", "liger_inplace"):
        mod = liger_rmsnorm_class(in_place=impl == "liger_inplace")(n, eps=bc.EPS)
    elif impl == "ours":
        from qwen3_fusion.rmsnorm import TritonRMSNorm

        mod = TritonRMSNorm(n, eps=bc.EPS)
    else:
        raise ValueError(f"unknown RMSNorm implementation {impl!r}")
    mod = mod.to(device=weight.device, dtype=weight.dtype)
    with torch.no_grad():
        mod.weight.copy_(weight)
    if impl.startswith("torch_compile"):
        torch._dynamo.reset()
        mode = "max-autotune-no-cudagraphs" if impl.endswith("max_autotune") else None
        return torch.compile(mod, dynamic=False, mode=mode), mod.weight
    return mod, mod.weight


# %% src_literate/post2_triton_rmsnorm.pmd::bench_norms_rmsnorm_inputs
def rmsnorm_inputs(rows: int, n: int, dtype, device=None, seed: int = 0):
    """Fresh random x, weight (around 1) and dy for one shape."""
    device = device or bc.DEVICE
    g = torch.Generator(device=device).manual_seed(seed + rows + n)
    x = torch.randn(rows, n, device=device, dtype=dtype, generator=g)
    w = 1 + 0.1 * torch.randn(n, device=device, dtype=dtype, generator=g)
    dy = torch.randn(rows, n, device=device, dtype=dtype, generator=g)
    return x, w, dy


def rmsnorm_reference(x, w, dy):
    """HF Qwen3RMSNorm run in float64 on upcast inputs: (y, dx, dw), the accuracy reference."""
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    ref = Qwen3RMSNorm(x.shape[-1], eps=bc.EPS).to(device=x.device, dtype=torch.float64)
    with torch.no_grad():
        ref.weight.copy_(w.double())
    xf = x.double().requires_grad_()
    y = ref(xf)
    dx, dw = torch.autograd.grad(y, (xf, ref.weight), dy.double())
    return y.detach(), dx, dw


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    """||out - ref|| / ||ref|| in float64."""
    return float((out.detach().double() - ref).norm() / ref.norm())


def rmsnorm_bytes(rows: int, n: int, dtype, direction: str) -> int:
    """Bytes a pass must move: fwd reads x, writes y; bwd reads x, dy, writes dx (+ weight, dW)."""
    e = torch.empty((), dtype=dtype).element_size()
    passes, vectors = (2, 1) if direction == "fwd" else (3, 2)
    return passes * rows * n * e + vectors * n * e


def time_passes(fn, weight, x, dy, repeats: int = 3):
    """Forward and backward timings of fn: {pass: {ms, ms_min, ms_max, ms_eager, ...}}, (y, dx, dw).

    'ms' is the median over CUDA-graph replays (GPU time), 'ms_eager' the plain do_bench median,
    which includes host launch overhead whenever that outlasts the GPU work; each is the median
    of `repeats` do_bench runs, with their min and max.
    """
    side = None if bc.SMOKE else torch.cuda.Stream()
    fast = lambda f: bc.median_ms(f, 5, 25)
    with torch.no_grad():
        y = fn(x)  # warm-up (compiles) outside timing
        fwd_eager = bc.spread([fast(lambda: fn(x)) for _ in range(repeats)])
    xg = x.detach().requires_grad_()
    with torch.cuda.stream(side) if side else contextlib.nullcontext():
        yg = fn(xg)  # backward nodes run on the stream of their forward: the capture stream
    bc.sync()
    grad = lambda: torch.autograd.grad(yg, (xg, weight), dy, retain_graph=True)
    dx, dw = (t.clone() for t in grad())  # before any in-place peer reuses dy
    bwd_eager = bc.spread([fast(grad) for _ in range(repeats)])
    times = {}
    for p, t in (("fwd", fwd_eager), ("bwd", bwd_eager)):
        times[p] = {"ms": t["ms"], "ms_min": t["min"], "ms_max": t["max"], "timing": "eager",
                    "ms_eager": t["ms"], "ms_eager_min": t["min"], "ms_eager_max": t["max"]}  # fmt: skip
    for direction, f in (("fwd", lambda: fn(x)), ("bwd", grad)) if side else ():
        try:
            with torch.no_grad() if direction == "fwd" else contextlib.nullcontext():
                g = bc.spread([bc.graph_ms(f, 5, 25, stream=side) for _ in range(repeats)])
            times[direction].update(
                ms=g["ms"], ms_min=g["min"], ms_max=g["max"], timing="cuda_graph"
            )
        except Exception as exc:  # noqa: BLE001 - keep the eager figure
            print(f"CUDA-graph capture failed ({direction}), eager time kept: {exc}", flush=True)
            bc.sync()
    return times, (y, dx, dw)


# %% src_literate/post2_triton_rmsnorm.pmd::bench_norms_time_rmsnorm
def time_rmsnorm(impl, x, w, dy, ref, ceiling_gbps) -> list[dict]:
    """One implementation at one shape: times, GB/s, % of the copy ceiling, error vs float64."""
    rows, n = x.shape
    t0 = time.perf_counter()
    fn, weight = make_norm(impl, n, w)
    dy = dy.clone() if impl == "liger_inplace" else dy  # it writes dx into dy
    times, (y, dx, dw) = time_passes(fn, weight, x, dy)
    errs = {"fwd": relative_error(y, ref[0]), "bwd": relative_error(dx, ref[1])}
    out = []
    for direction, t in times.items():
        gbps = rmsnorm_bytes(rows, n, x.dtype, direction) / t["ms"] / 1e6
        out.append({
            "rows": rows, "n": n, "dtype": str(x.dtype).removeprefix("torch."), "impl": impl,
            "pass": direction, "gbps": gbps, "pct_copy": 100 * gbps / ceiling_gbps,
            "rel_err": errs[direction], **t,
        })  # fmt: skip
    out[1]["rel_err_dw"] = relative_error(dw, ref[2])
    out[0]["setup_s"] = time.perf_counter() - t0  # compile time for the compiled peers
    out[0]["y"] = y  # for the bitwise comparison with HF eager; dropped before writing
    return out


def time_all_rmsnorm(impls, ceiling_gbps, shapes, log=print) -> dict:
    """Every implementation at every shape; an implementation that fails is logged and skipped.

    -> {rmsnorm: rows, copy_by_shape: 2-pass copies, copy_by_shape_bwd: 3-pass, skipped: reasons}.
    """
    rows_out, copies, copies_bwd, skipped = [], [], [], {}
    for rows, n, dtype in shapes:
        x, w, dy = rmsnorm_inputs(rows, n, dtype)
        ref = rmsnorm_reference(x, w, dy)
        copies.append(bc.copy_same_size(x, ceiling_gbps))
        copies_bwd.append(bc.copy_same_size(x, ceiling_gbps, passes=3))
        here = []
        todo = impls + (["torch_compile_max_autotune"] if (rows, n, dtype) == MAX_AUTOTUNE_SHAPE
                        and "torch_compile" in impls else [])  # fmt: skip
        for impl in todo:
            if impl in skipped:
                continue
            try:
                here += time_rmsnorm(impl, x, w, dy, ref, ceiling_gbps)
            except Exception as exc:  # noqa: BLE001 - one broken peer must not stop the run
                log(f"rmsnorm {impl} {rows}x{n} {dtype} failed: {type(exc).__name__}: {exc}")
                if isinstance(exc, ImportError):
                    skipped[impl] = f"does not import: {exc}"
        hf = next((r["y"] for r in here if r["impl"] == "hf_eager" and "y" in r), None)
        for r in here:
            y = r.pop("y", None)
            if hf is not None and y is not None:
                r["bitwise_equal_hf"] = float((y == hf).float().mean())
        rows_out += here
        log(f"rmsnorm {rows}x{n} {dtype} done")
        del x, w, dy, ref, here, hf
        if not bc.SMOKE:
            torch.cuda.empty_cache()
    return {"rmsnorm": rows_out, "copy_by_shape": copies, "copy_by_shape_bwd": copies_bwd,
            "skipped": skipped}  # fmt: skip


def host_table(impls=HOST_IMPLS, widths=(128, 1024, 4096), rows: int = 64, log=print) -> list:
    """Host microseconds per call with a (rows, N) bf16 input the GPU finishes at once: forward
    with x requiring grad, and forward + backward, each 300 calls back to back."""
    calls, widths = (5, (64,)) if bc.SMOKE else (300, widths)
    out = []
    for n in widths:
        x, w, dy = rmsnorm_inputs(rows, n, torch.bfloat16)
        x.requires_grad_()
        for impl in impls:
            try:
                fn, _ = make_norm(impl, n, w)
                fwd = bc.host_us(lambda f=fn, a=x: f(a), calls)
                both = bc.host_us(lambda f=fn, a=x, g=dy: f(a).backward(g), calls)
            except Exception as exc:  # noqa: BLE001
                log(f"host {impl} failed: {type(exc).__name__}: {exc}")
                continue
            out.append({"rows": rows, "n": n, "impl": impl, "fwd_us": fwd, "fwd_bwd_us": both})
            log(f"host {n:5d} {impl:<16} fwd {fwd:6.1f} us  fwd+bwd {both:6.1f} us")
    return out
