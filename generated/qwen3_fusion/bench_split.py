# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""Each RMSNorm backward split into its kernels: `python -m qwen3_fusion.bench --probe bwd_split`.

At every bf16 shape of the kernel tables, each implementation's backward (autograd.grad with the graph
retained, as bench_norms.time_passes times it) runs CALLS times under torch.profiler after a warm-up;
every kernel's GPU time per call is kept by name. Ours is two Triton kernels (rows, then the dW sum),
Liger and Inductor a Triton kernel and an ATen reduction: this shows what each part costs.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "CALLS",
    "SPLIT_IMPLS",
    "bwd_split",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_split
import functools

import torch

from qwen3_fusion import bench_common as bc

CALLS = 20
SPLIT_IMPLS = ("ours", "torch_compile", "liger_inplace", "liger", "f_rms_norm")


def _kernel_us(grad) -> dict:
    """GPU microseconds per call of each kernel grad() launches, from CALLS profiled calls."""
    from qwen3_fusion.bench_probes import _gpu_ms_by_name

    for _ in range(3):
        grad()
    bc.sync()
    act = torch.profiler.ProfilerActivity.CPU if bc.SMOKE else torch.profiler.ProfilerActivity.CUDA
    with torch.profiler.profile(activities=[act]) as prof:
        for _ in range(CALLS):
            grad()
        bc.sync()
    by_name, _ = _gpu_ms_by_name(prof)
    return {name: 1e3 * ms / CALLS for name, ms in by_name.items()}


def bwd_split(log=print) -> dict:
    from qwen3_fusion import bench_norms as norms

    shapes = norms.SMOKE_SHAPES[:1] if bc.SMOKE else norms.RMSNORM_SHAPES
    impls = ("ours", "torch_compile") if bc.SMOKE else SPLIT_IMPLS
    rows = []
    for m, n, dtype in [s for s in shapes if s[2] == torch.bfloat16]:
        x, w, dy = norms.rmsnorm_inputs(m, n, dtype)
        for impl in impls:
            try:
                fn, weight = norms.make_norm(impl, n, w)
            except ImportError as exc:  # a peer that is not installed is left out, and said
                log(f"bwd_split {impl}: {exc}")
                continue
            d = dy.clone() if impl == "liger_inplace" else dy  # it writes dx into dy
            xg = x.detach().requires_grad_()
            yg = fn(xg)
            grad = functools.partial(torch.autograd.grad, yg, (xg, weight), d, retain_graph=True)
            kernels = _kernel_us(grad)
            rows.append({"rows": m, "n": n, "dtype": "bfloat16", "impl": impl, "us_per_call": kernels,
                         "total_us": sum(kernels.values())})  # fmt: skip
            parts = ", ".join(f"{k[:40]} {v:.1f}" for k, v in kernels.items())
            log(f"bwd_split {m}x{n} {impl:14s} {parts}")
            del fn, yg, xg, d, grad
        del x, w, dy
        if not bc.SMOKE:
            torch.cuda.empty_cache()
    return {"calls": CALLS, "rows": rows}
