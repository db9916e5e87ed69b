"""Host microseconds per call of the forward along each layer of the launch path, on a (64, N) bf16
input the GPU finishes at once: Triton's own `kernel[grid](...)`, the package's cached `launch`, the
whole `rms_norm_forward` wrapper (argument checks, plan, VEC), the differentiable `rms_norm` with x
requiring grad (autograd.Function), and `F.rms_norm`. Post 2 §四 says `launch` saves host time per
call; this measures how much. Writes $OUT/h200_launch_host.json. `--smoke`: CPU interpreter, tiny."""

import os
import sys

SMOKE = "--smoke" in sys.argv
if SMOKE:
    os.environ["TRITON_INTERPRET"] = "1"

import torch  # noqa: E402
import triton  # noqa: E402

from qwen3_fusion import bench_common as bc  # noqa: E402

if SMOKE:
    bc.use_smoke()
from qwen3_fusion import rmsnorm as rn  # noqa: E402
from qwen3_fusion.launcher import launch  # noqa: E402

OUT = os.environ.get("OUT", ".")


def paths(x, w):
    """name -> a zero-argument call of one layer of the forward's launch path."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    block_m, block_n, warps, _, _ = rn._plan(n_cols, x.dtype, x.dtype, False, x.device)
    vec = rn._vec(n_cols, n_cols, n_cols, element_size=x.element_size())
    grid = (triton.cdiv(n_rows, block_m),)
    args = (x, w, y, rstd, n_rows, 1e-6, n_cols // vec, n_cols // vec, n_cols // vec)
    meta = dict(BLOCK_M=block_m, BLOCK_N=block_n, VEC=vec)
    xg = x.detach().clone().requires_grad_()
    return {
        "kernel[grid]": lambda: rn._rmsnorm_fwd_kernel[grid](*args, **meta, num_warps=warps),
        "launch": lambda: launch(rn._rmsnorm_fwd_kernel, grid, args, meta, warps),
        "rms_norm_forward": lambda: rn.rms_norm_forward(x, w),
        "rms_norm (autograd)": lambda: rn.rms_norm(xg, w),
        "F.rms_norm": lambda: torch.nn.functional.rms_norm(x, (n_cols,), w, 1e-6),
    }


def main() -> int:
    calls, widths, rows = (3, (64,), 4) if SMOKE else (1000, (128, 1024, 4096), 64)
    out = []
    for n in widths:
        x = torch.randn(rows, n, device=bc.DEVICE, dtype=torch.bfloat16)
        w = 1 + 0.1 * torch.randn(n, device=bc.DEVICE, dtype=torch.bfloat16)
        for name, call in paths(x, w).items():
            us = bc.host_us(call, calls)
            out.append({"rows": rows, "n": n, "path": name, "host_us": us})
            print(f"{n:5d} {name:<20} {us:7.1f} us", flush=True)
    res = {"meta": bc.environment("python device_runs/launch_host.py"), "calls": calls, "rows": out}
    bc.write_json(res, os.path.join(OUT, "h200_launch_host.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
