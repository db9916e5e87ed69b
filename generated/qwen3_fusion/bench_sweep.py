# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""Sweep of our kernels' launch configs around tile_config's choice (`python build.py bench --sweep`).

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "SWEEP_SHAPES",
    "config_candidates",
    "sweep_ours",
    "time_with_config",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_sweep_head
import itertools
import time

import torch

from qwen3_fusion import bench_common as bc
from qwen3_fusion.bench_norms import RMSNORM_SHAPES, rmsnorm_bytes, rmsnorm_inputs

# the backward's short rows first: where the first tile tables fell furthest behind
SWEEP_SHAPES = [(98304, 384, torch.bfloat16), (131072, 256, torch.bfloat16),
                (16384, 896, torch.bfloat16)] + RMSNORM_SHAPES[:6]  # fmt: skip


def config_candidates(n_cols: int, dtype, backward: bool) -> list:
    """tile_config's choice first, then a grid: rows per step (by tile size), warps, programs
    per SM and pipeline stages for the backward; rows per program and warps for the forward."""
    import triton

    from qwen3_fusion.rmsnorm import tile_config

    base = tile_config(n_cols, dtype, backward)
    bn = triton.next_power_of_2(n_cols)
    first = (base.kwargs["BLOCK_M"], base.num_warps, base.kwargs["PER_SM"], base.num_stages)
    tiles = (2048, 4096, 8192, 16384) if bn <= 2048 else (bn, 2 * bn)
    if backward:
        grid = itertools.product(tiles, (4, 8), (1, 2, 4, 8), (2, 3))
    else:
        grid = itertools.product(tiles, (4, 8, 16), (1,), (1,))
    cands = [first]
    for elems, warps, per_sm, stages in grid:
        c = (max(1, elems // bn), warps, per_sm, stages)
        staged = (stages - 1) * c[0] * bn * 2 * dtype.itemsize  # x and dy tiles in flight
        if c not in cands and staged <= 0.7 * 227 * 1024:
            cands.append(c)
    make = lambda c: triton.Config(
        {"BLOCK_M": c[0], "PER_SM": c[2]}, num_warps=c[1], num_stages=c[3]
    )
    return [make(c) for c in cands]


def time_with_config(direction: str, cfg, x, w, dy, rstd) -> tuple[float, float]:
    """Graph-timed forward or backward of our kernels with tile_config forced to cfg for x.

    -> (ms, seconds of the first call: compilation included, what autotune pays per config).
    """
    import qwen3_fusion.rmsnorm as ours

    chosen, key = ours.tile_config, (x.shape[1], x.dtype, direction == "bwd")
    ours.tile_config = lambda n, dt, backward=False, dy_dtype=None, smem=0: (
        cfg if (n, dt, backward) == key else chosen(n, dt, backward, dy_dtype, smem)
    )
    ours._plan.cache_clear()
    try:
        if direction == "fwd":
            f = lambda: ours.rms_norm_forward(x, w, bc.EPS)
        else:
            f = lambda: ours.rms_norm_backward(dy, x, w, rstd)
        bc.sync()
        t = time.perf_counter()
        f()
        bc.sync()
        first_s = time.perf_counter() - t
        return bc.graph_ms(f, warmup=5, rep=25), first_s
    finally:
        ours.tile_config = chosen
        ours._plan.cache_clear()


# %% src_literate/post2_triton_rmsnorm.pmd::bench_sweep_sweep_ours
def sweep_ours(shapes=SWEEP_SHAPES, log=print, budget_s: float = 1e9, limit: int = 0) -> list[dict]:
    """Time the config candidates of our kernels at every shape (backward first, it has more)."""
    from qwen3_fusion.rmsnorm import rms_norm_forward

    out, t0 = [], time.monotonic()
    for rows, n, dtype in shapes:
        x, w, dy = rmsnorm_inputs(rows, n, dtype)
        rstd = rms_norm_forward(x, w, bc.EPS)[1]
        for direction in ("bwd", "fwd"):
            mine = []
            for i, cfg in enumerate(
                config_candidates(n, dtype, direction == "bwd")[: limit or None]
            ):
                if time.monotonic() - t0 > budget_s:
                    break
                try:
                    ms, first_s = time_with_config(direction, cfg, x, w, dy, rstd)
                except Exception as exc:  # noqa: BLE001 - e.g. out of shared memory
                    log(f"sweep {direction} {rows}x{n} {cfg} failed: {str(exc)[:120]}")
                    continue
                mine.append({
                    "rows": rows, "n": n, "dtype": str(dtype).removeprefix("torch."),
                    "pass": direction, "default": i == 0, "ms": ms, "first_call_s": first_s,
                    "gbps": rmsnorm_bytes(rows, n, dtype, direction) / ms / 1e6,
                    "BLOCK_M": cfg.kwargs["BLOCK_M"], "PER_SM": cfg.kwargs["PER_SM"],
                    "num_warps": cfg.num_warps, "num_stages": cfg.num_stages,
                })  # fmt: skip
            if mine:
                best = min(mine, key=lambda r: r["ms"])
                log(
                    f"sweep {direction} {rows}x{n}: default {mine[0]['gbps']:.0f} GB/s, best "
                    f"{best['gbps']:.0f} (M={best['BLOCK_M']} warps={best['num_warps']} "
                    f"stages={best['num_stages']} per_sm={best['PER_SM']}), {len(mine)} tried"
                )
            out += mine
        del x, w, dy, rstd
    return out
