# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""A plain program for Nsight Compute to wrap (2.7's and 5.7's DRAM throughput): one backward each of
our RMSNorm and Liger's (in_place=False), bf16, 16384 rows, N = 1024 and 4096.

    ncu --clock-control none -k 'regex:rms_norm_backward_kernel|rmsnorm_bwd_kernel' --section SpeedOfLight \
        --section WarpStateStats --section MemoryWorkloadAnalysis python -m qwen3_fusion.ncu_target

The committed results (h200_ncu_rmsnorm_bwd.txt) came from device_runs/session10_ncu.py, the same two
calls before they moved into the package.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "main",
]


# %% src_literate/post2_triton_rmsnorm.pmd::ncu_target
import argparse
import sys

import torch


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m qwen3_fusion.ncu_target", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--widths", default="1024,4096", help="comma list of row widths N")
    p.add_argument("--rows", type=int, default=16384)
    p.add_argument("--no-liger", action="store_true", help="ours only (liger-kernel not installed)")
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        print("qwen3_fusion.ncu_target needs a CUDA GPU: Nsight Compute profiles its kernels", file=sys.stderr)  # fmt: skip
        return 2
    from qwen3_fusion.bench_norms import make_norm, rmsnorm_inputs
    from qwen3_fusion.rmsnorm import rms_norm_backward, rms_norm_forward

    for n in (int(w) for w in args.widths.split(",")):
        x, w, dy = rmsnorm_inputs(args.rows, n, torch.bfloat16, device="cuda")
        rms_norm_backward(dy, x, w, rms_norm_forward(x, w, 1e-6)[1])
        if not args.no_liger:
            fn, weight = make_norm("liger", n, w)
            xg = x.detach().requires_grad_()
            torch.autograd.grad(fn(xg), (xg, weight), dy)
        torch.cuda.synchronize()
        print(f"N = {n}: done", flush=True)
    return 0


if __name__ == "__main__" and globals().get("__file__", "").endswith("ncu_target.py"):
    sys.exit(main())
