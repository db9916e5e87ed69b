"""Our RMSNorm kernels on row widths the tile table was never swept at (bf16, 16384 rows:
N = 768, 1536, 3584, 6144, 8192; 6144 borrows 5120's config, 8192's row was never run), against
every peer the bench times, torch.compile both with Inductor's multi-stage mix-order loops off
(torch 2.11's default) and on (2.13's default); and compile's forward with
`emulate_precision_casts` at N = 128 on the q_norm shape (262144 rows, beyond L2), three rounds.
Writes $OUT/h200_unseen_shapes.json. `--smoke`: CPU, tiny shapes, wall-clock timers."""

import os
import sys

from qwen3_fusion import bench_common as bc

if "--smoke" in sys.argv:
    bc.use_smoke()  # before the kernel modules are imported: Triton's interpreter

import torch  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402

from qwen3_fusion import bench_norms as norms  # noqa: E402

OUT = os.environ.get("OUT", ".")
FLAG = "mix_order_reduction_allow_multi_stages"
WIDTHS = (768, 1536, 3584, 6144, 8192)
PEERS = ("ours", "liger_inplace", "liger", "f_rms_norm", "hf_eager")


def timed(impl, x, w, dy, ref, ceiling, **tags) -> list:
    rows = []
    for r in norms.time_rmsnorm(impl, x, w, dy, ref, ceiling):
        r.pop("y", None)
        r.update(tags)
        rows.append(r)
        print(f"{r['rows']}x{r['n']} {impl:14s} {tags} {r['pass']} {1000 * r['ms']:.1f} us", flush=True)
    return rows


def main() -> int:
    if bc.SMOKE:  # the CPU backend donates saved buffers; the timing loop retains the graph
        torch._functorch.config.donated_buffer = False
    res = {"meta": bc.environment("python device_runs/session11_unseen_shapes.py"), "rows": [],
           "copy_by_shape": [], "copy_by_shape_bwd": [], "emulate_n128": []}
    ceiling = bc.copy_ceiling()["gbps"]
    shapes = [(64, 96), (64, 200)] if bc.SMOKE else [(16384, n) for n in WIDTHS]
    for rows, n in shapes:
        x, w, dy = norms.rmsnorm_inputs(rows, n, torch.bfloat16)
        ref = norms.rmsnorm_reference(x, w, dy)
        res["copy_by_shape"].append(bc.copy_same_size(x, ceiling))
        res["copy_by_shape_bwd"].append(bc.copy_same_size(x, ceiling, passes=3))
        for impl in PEERS if not bc.SMOKE else ("ours", "f_rms_norm", "hf_eager"):  # Liger: GPU only
            res["rows"] += timed(impl, x, w, dy, ref, ceiling)
        for multi in (False, True):
            setattr(inductor_config.triton, FLAG, multi)
            res["rows"] += timed("torch_compile", x, w, dy, ref, ceiling, multi_stages=multi)
        del x, w, dy, ref
    # emulate_precision_casts on the q_norm shape: forward time with the flag off and on
    rows, n = (64, 96) if bc.SMOKE else (262144, 128)
    x, w, dy = norms.rmsnorm_inputs(rows, n, torch.bfloat16)
    ref = norms.rmsnorm_reference(x, w, dy)
    for rnd in range(1 if bc.SMOKE else 3):
        for emulate in (False, True):
            inductor_config.emulate_precision_casts = emulate
            for r in timed("torch_compile", x, w, dy, ref, ceiling, emulate=emulate, round=rnd):
                if r["pass"] == "fwd":
                    res["emulate_n128"].append(r)
    inductor_config.emulate_precision_casts = False
    bc.write_json(res, os.path.join(OUT, "h200_unseen_shapes.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
