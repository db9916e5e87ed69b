# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""5.2's other dW strategy, measured: `python -m qwen3_fusion.bench --probe atomic_dw`.

rms_norm_backward(..., atomic_dw=True) runs the same kernel and launch plan (tiles, stages, VEC,
program count) with ATOMIC_DW set: each program adds its fp32 dW row into one zeroed fp32 row with
tl.atomic_add, and a cast replaces the second kernel. At every bf16 shape of the kernel tables: both
graph-timed, and how many distinct dW results ATOMIC_RUNS calls of each give on the same inputs.

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

from qwen3_fusion import bench_common as bc

ATOMIC_RUNS = 20


def atomic_backward(dy, x, w, rstd):
    """dx, dW with the atomic dW: the package's launcher, ATOMIC_DW set."""
    from qwen3_fusion.rmsnorm import rms_norm_backward

    return rms_norm_backward(dy, x, w, rstd, atomic_dw=True)


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
