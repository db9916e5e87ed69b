"""torch.compile's RMSNorm with Inductor's mix-order reduction allowed to pipeline its loop
(`mix_order_reduction_allow_multi_stages`: off by default in torch 2.11, on in 2.13), against the
2.11 default and our kernel, at every RMSNorm shape of the bench, in one process.
Writes $OUT/h200_compile_multistage.json. `--smoke`: CPU, tiny shapes, wall-clock timers."""

import os
import sys

from qwen3_fusion import bench_common as bc

if "--smoke" in sys.argv:
    bc.use_smoke()  # before the kernel modules are imported: Triton's interpreter

import torch  # noqa: E402
from torch._inductor.config import triton as config  # noqa: E402

from qwen3_fusion import bench_norms as norms  # noqa: E402

OUT = os.environ.get("OUT", ".")
FLAG = "mix_order_reduction_allow_multi_stages"  # in torch._inductor.config.triton


def main(argv) -> int:
    if not hasattr(config, FLAG):
        print(f"torch {torch.__version__}: no inductor config {FLAG}")
        return 1
    if bc.SMOKE:  # the CPU backend donates saved buffers; the timing loop retains the graph
        torch._functorch.config.donated_buffer = False
    res = {"meta": bc.environment("python device_runs/compile_multistage.py"),
           "flag": "triton." + FLAG, "default": getattr(config, FLAG), "rows": []}
    ceiling = bc.copy_ceiling()["gbps"]
    shapes = norms.SMOKE_SHAPES if bc.SMOKE else norms.RMSNORM_SHAPES
    for rows, n, dtype in shapes:
        x, w, dy = norms.rmsnorm_inputs(rows, n, dtype)
        ref = norms.rmsnorm_reference(x, w, dy)
        for impl, multi in (("ours", None), ("torch_compile", False), ("torch_compile", True)):
            if multi is not None:
                setattr(config, FLAG, multi)
            for r in norms.time_rmsnorm(impl, x, w, dy, ref, ceiling):
                r.pop("y", None)
                r["multi_stages"] = multi
                res["rows"].append(r)
                print(f"{rows}x{n} {r['dtype']} {impl:14s} multi={multi!s:5s} {r['pass']} "
                      f"{1000 * r['ms']:.1f} us ({r['timing']})", flush=True)
        del x, w, dy, ref
    bc.write_json(res, os.path.join(OUT, "h200_compile_multistage.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
