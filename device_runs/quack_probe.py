"""Quack 0.6.4's RMSNorm (CuTe DSL, standalone, on the image's PyTorch 2.11) and Liger 0.8.5's CuTe DSL backend,
timed beside ours and the other peers at the bench's bf16 shapes, forward and backward (CUDA-graph replay), with
the same harness as the kernel tables (qwen3_fusion.bench_norms.time_all_rmsnorm).

python device_runs/quack_probe.py OUT_DIR   (needs a CUDA GPU, quack-kernels and nvidia-cutlass-dsl importable)
"""

import json
import os
import sys

import torch

from qwen3_fusion import bench_common as bc
from qwen3_fusion import bench_norms as norms

IMPLS = ["ours", "quack", "liger_cute", "torch_compile", "f_rms_norm", "liger_inplace"]


def main(out_dir: str) -> None:
    meta = bc.environment("python device_runs/quack_probe.py")
    for pkg in ("quack-kernels", "nvidia-cutlass-dsl", "apache-tvm-ffi"):
        meta[pkg] = bc.version(pkg)
    ceiling = bc.copy_ceiling()
    shapes = [s for s in norms.RMSNORM_SHAPES if s[2] == torch.bfloat16]
    res = norms.time_all_rmsnorm(IMPLS, ceiling["gbps"], shapes, log=lambda s: print(s, flush=True))
    path = os.path.join(out_dir, f"{bc.gpu_slug(meta['gpu'])}_quack_probe.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"meta": meta, "copy": ceiling, **res}, f, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    main(sys.argv[1])
