# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""5.2's other dW strategy, measured: `python -m qwen3_fusion.bench --probe atomic_dw`.

The same persistent backward, but each program adds its fp32 dW row into one fp32 vector with
tl.atomic_add (zeroed first, cast to the weight's dtype after) instead of writing a partial row for
a second kernel to sum. At every bf16 shape of the kernel tables: both graph-timed, and how many
distinct dW results ATOMIC_RUNS calls of each give on the same inputs (the atomic order varies run to run).
The loop is rms_norm_backward's kernel rewritten for contiguous rows (no VEC; the bench widths divide
by 16, so Triton still proves 16-byte rows); tiles, stages and program counts are the package's.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "ATOMIC_RUNS",
    "atomic_backward",
    "atomic_dw",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_atomic
import functools

import torch
import triton
import triton.language as tl

from qwen3_fusion import bench_common as bc

ATOMIC_RUNS = 20


@triton.jit
def _bwd_atomic_dw_kernel(dy_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, dw32_ptr, n_rows, n_cols,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, NUM_STAGES: tl.constexpr):  # fmt: skip
    # contiguous rows only: the bench widths divide by 16, so Triton vectorizes without VEC
    cols = tl.arange(0, BLOCK_N)
    cmask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    n_blocks = tl.cdiv(n_rows, BLOCK_M)
    for blk in tl.range(tl.program_id(0), n_blocks, tl.num_programs(0), num_stages=NUM_STAGES):
        r = blk * BLOCK_M + tl.arange(0, BLOCK_M)
        m = (r < n_rows)[:, None] & cmask[None, :]
        off = r.to(tl.int64)[:, None] * n_cols + cols[None, :]
        xv = tl.load(x_ptr + off, mask=m, other=0.0).to(tl.float32)
        g = tl.load(dy_ptr + off, mask=m, other=0.0).to(tl.float32)
        rs = tl.load(rstd_ptr + r, mask=r < n_rows, other=0.0)[:, None]
        xh = xv * rs
        gw = g * w[None, :]
        dx = (gw - xh * (tl.sum(gw * xh, axis=1)[:, None] / n_cols)) * rs
        tl.store(dx_ptr + off, dx.to(dx_ptr.dtype.element_ty), mask=m)
        acc += tl.sum(g * xh.to(x_ptr.dtype.element_ty).to(tl.float32), axis=0)
    tl.atomic_add(dw32_ptr + cols, acc, mask=cmask)  # P programs land in no fixed order


def atomic_backward(dy, x, w, rstd):
    """dx, dW of contiguous (M, N) rows with the atomic dW: memset, one kernel, a cast."""
    from qwen3_fusion.rmsnorm import _plan

    if not (x.is_contiguous() and dy.is_contiguous()):  # the kernel's offsets assume row stride N
        raise ValueError(
            f"atomic_backward: contiguous (M, N) x and dy only, got strides {x.stride()} and {dy.stride()}"
        )
    n_rows, n_cols = x.shape
    block_m, block_n, warps, stages, programs = _plan(n_cols, x.dtype, dy.dtype, True, x.device)
    n_prog = max(1, min(triton.cdiv(n_rows, block_m), programs))  # as rms_norm_backward
    dx = torch.empty_like(x)
    dw32 = torch.zeros(n_cols, dtype=torch.float32, device=x.device)
    _bwd_atomic_dw_kernel[(n_prog,)](dy, x, w, rstd, dx, dw32, n_rows, n_cols, BLOCK_M=block_m,
                                     BLOCK_N=block_n, NUM_STAGES=stages, num_warps=warps)  # fmt: skip
    return dx, dw32.to(w.dtype)


def _distinct(results) -> int:
    return len({t.float().cpu().numpy().tobytes() for t in results})


def atomic_dw(log=print) -> dict:
    from qwen3_fusion import bench_norms as norms
    from qwen3_fusion.rmsnorm import rms_norm_backward, rms_norm_forward

    shapes = norms.SMOKE_SHAPES[:1] if bc.SMOKE else norms.RMSNORM_SHAPES
    rows = []
    for m, n, dtype in [s for s in shapes if s[2] == torch.bfloat16]:
        x, w, dy = norms.rmsnorm_inputs(m, n, dtype)
        rstd = rms_norm_forward(x, w)[1]
        ours = [rms_norm_backward(dy, x, w, rstd) for _ in range(ATOMIC_RUNS)]
        atom = [atomic_backward(dy, x, w, rstd) for _ in range(ATOMIC_RUNS)]
        scale = ours[0][1].float().abs().max().item()
        row = {
            "rows": m, "n": n, "dtype": "bfloat16", "runs": ATOMIC_RUNS,
            "two_stage_us": 1e3 * bc.graph_ms(functools.partial(rms_norm_backward, dy, x, w, rstd)),
            "atomic_us": 1e3 * bc.graph_ms(functools.partial(atomic_backward, dy, x, w, rstd)),
            "two_stage_distinct_dw": _distinct(d[1] for d in ours),
            "atomic_distinct_dw": _distinct(d[1] for d in atom),
            "dx_equal": all(torch.equal(a[0], ours[0][0]) for a in atom),
            "dw_max_rel_diff": max((a[1].float() - ours[0][1].float()).abs().max().item() for a in atom) / scale,
        }  # fmt: skip
        rows.append(row)
        log(f"atomic_dw {m}x{n} " + ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                                              for k, v in row.items() if k not in ("rows", "n", "dtype")))  # fmt: skip
        del x, w, dy, rstd, ours, atom
        if not bc.SMOKE:
            torch.cuda.empty_cache()
    return {"rows": rows}
