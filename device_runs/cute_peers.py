"""The two CuTe DSL RMSNorms, timed beside ours on a Hopper GPU (session 37; the committed run,
h100_cute_peers.json, was given an H100).

Quack 0.6.4 (`quack.rmsnorm`, the kernels PyTorch 2.13 vendors as 0.4.1 behind F.rms_norm) and Liger
0.8.5's CuTe DSL RMSNorm (`LigerRMSNormFunction` of liger_kernel.ops.cutedsl, what
apply_liger_kernel_to_qwen3 runs under LIGER_KERNEL_IMPL=cutedsl), both on torch 2.11 with
nvidia-cutlass-dsl 4.8.1, against ours and the peers measured before, at post 2's six bf16 shapes:
bench_norms.time_all_rmsnorm (CUDA-graph replay, three rounds, error against float64).

usage: python device_runs/cute_peers.py OUT_JSON [--smoke]
"""

import sys
from importlib import metadata

import torch
from qwen3_fusion import bench_common as bc
from qwen3_fusion import bench_norms as bn


def main() -> int:
    out, smoke = sys.argv[1], "--smoke" in sys.argv
    if smoke:
        bc.use_smoke()
    meta = bc.environment("python device_runs/cute_peers.py")
    for pkg in (
        "quack-kernels",
        "nvidia-cutlass-dsl",
        "nvidia-cutlass-dsl-libs-cu13",
        "apache-tvm-ffi",
    ):
        try:
            meta[pkg.replace("-", "_")] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            meta[pkg.replace("-", "_")] = None
    shapes = (
        bn.SMOKE_SHAPES[:1] if smoke else [s for s in bn.RMSNORM_SHAPES if s[2] == torch.bfloat16]
    )
    impls = ["ours", "torch_compile", "f_rms_norm", "liger", "liger_inplace", "liger_cute", "quack"]
    ceiling = bc.copy_ceiling()
    res = bn.time_all_rmsnorm(impls, ceiling["gbps"], shapes)
    res = {"meta": meta, "copy_ceiling": ceiling, **res}
    bc.write_json(res, out)
    by = {(r["rows"], r["n"], r["impl"], r["pass"]): r for r in res["rmsnorm"]}
    print("skipped:", res["skipped"])
    for rows, n, _ in shapes:
        for p in ("fwd", "bwd"):
            ours = by.get((rows, n, "ours", p))
            cells = []
            for i in impls:
                r = by.get((rows, n, i, p))
                if r and ours:
                    cells.append(f"{i}={r['ms'] / ours['ms']:.2f}(err {r['rel_err']:.1e})")
            print(f"{rows}x{n} {p}: " + " ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
