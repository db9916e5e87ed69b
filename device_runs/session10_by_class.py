"""GPU kernel time by class (the classifier post 1 §六 prints: attention names first, cuDNN included)
for one profiled training step of HF eager, torch.compile, torch.compile with sdpa on is_causal, and
Liger's full patch (FLCE chunk_mem_const 16), at Qwen3-0.6B x 8 layers (4 x 2048) and Qwen3-1.7B x 6
layers (2 x 4096). Each kernel's name and total time is kept, so any classifier can be re-applied.

Usage: python device_runs/session10_by_class.py [--smoke] -> $OUT/h200_kernels_by_class.json
"""

import collections
import os
import sys

import torch

from qwen3_fusion import bench_common as bc

if "--smoke" in sys.argv:
    bc.use_smoke()
from qwen3_fusion import train_step as ts  # noqa: E402
from qwen3_fusion.bench_artifacts import _union_ms, kernel_class  # noqa: E402


def profile_step(model, batch) -> dict:
    _, _, opt = ts.run_steps(model, batch, 3)
    by_name = collections.Counter()
    spans = []
    act = torch.profiler.ProfilerActivity.CPU if bc.SMOKE else torch.profiler.ProfilerActivity.CUDA
    with torch.profiler.profile(activities=[act]) as prof:
        model(input_ids=batch, labels=batch).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        bc.sync()
    for e in prof.events():
        if e.device_type.name != "CUDA" or getattr(e, "is_user_annotation", False):
            continue
        if e.name.startswith(("Optimizer.", "ProfilerStep")):
            continue
        us = e.time_range.end - e.time_range.start
        by_name[e.name] += us / 1e3
        spans.append((e.time_range.start, us))  # (start, duration) in us
    by_class = collections.Counter()
    for name, ms in by_name.items():
        by_class[kernel_class(name)] += ms
    return {"kernels": len(spans), "kernel_ms": sum(by_name.values()), "busy_ms": _union_ms(spans),
            "by_class_ms": dict(by_class), "by_name_ms": dict(by_name)}  # fmt: skip


def main() -> int:
    plan = {"smoke": ts.SMOKE_CONFIG} if bc.SMOKE else {"qwen3_0.6b_8l": ts.TRAIN_CONFIG, "qwen3_1.7b_6l": ts.TRAIN_CONFIG_1P7B}
    variants = ("hf", "compile", "compile_causal") + (() if bc.SMOKE else ("liger_full_coarse",))
    rows = []
    for key, cfg in plan.items():
        state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
        for variant in variants:
            torch._dynamo.reset()
            with ts.qwen3_globals_kept(), ts.flce_chunks_kept():
                model = ts.build_variant(variant, state, ts.model_config(cfg))
                row = {"config": key, "variant": variant, **profile_step(model, batch)}
            rows.append(row)
            cls = {k: round(v, 1) for k, v in sorted(row["by_class_ms"].items())}
            print(f"{key} {variant:18s} kernels {row['kernels']:5d} kernel {row['kernel_ms']:6.1f} ms busy {row['busy_ms']:6.1f} {cls}", flush=True)
            del model
            if not bc.SMOKE:
                torch.cuda.empty_cache()
    out = {"meta": bc.environment("python device_runs/session10_by_class.py"), "rows": rows}
    bc.write_json(out, os.path.join(os.environ.get("OUT", "/tmp"), "h200_kernels_by_class.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
