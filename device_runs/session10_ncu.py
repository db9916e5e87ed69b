"""Under Nsight Compute: one call each of our RMSNorm backward and Liger 0.8.5's (in_place=False),
bf16, 16384 rows, N = 1024 and 4096, so that ncu reads DRAM throughput and warp stalls of both.

Usage: ncu --clock-control none -k regex:"rms_norm_backward_kernel|rmsnorm_bwd_kernel" \
           --section SpeedOfLight --section WarpStateStats python device_runs/session10_ncu.py
"""

import torch

from qwen3_fusion.bench_norms import make_norm, rmsnorm_inputs
from qwen3_fusion.rmsnorm import rms_norm_backward, rms_norm_forward

for n in (1024, 4096):
    x, w, dy = rmsnorm_inputs(16384, n, torch.bfloat16)
    rstd = rms_norm_forward(x, w, 1e-6)[1]
    rms_norm_backward(dy, x, w, rstd)
    fn, weight = make_norm("liger", n, w)
    xg = x.detach().requires_grad_()
    torch.autograd.grad(fn(xg), (xg, weight), dy)
    torch.cuda.synchronize()
    print("done", n, flush=True)
