"""Why Liger's whole Qwen3 patch (apply_liger_kernel_to_qwen3 defaults) is slower per step than HF eager
on the H200 in the training bench: each Liger kernel group on its own (the other groups left as HF's),
then one profiled step of the full patch and of HF eager (top kernels by device time, launch counts).
Writes $OUT/h200_liger_full.json (with the bench's meta) and $OUT/liger_full_profile.txt."""

import json
import os
import sys

import torch

from qwen3_fusion import bench_common as bc
from qwen3_fusion.bench_artifacts import _union_ms, kernel_class
from qwen3_fusion import train_step as ts

OUT = os.environ.get("OUT", ".")
# `--profile flce_only` adds groups to the profiled ones; `--name h200_flce_profile` names the outputs
# ($OUT/NAME.json, $OUT/NAME.txt); `--groups hf,flce_only` measures only those groups
ARGS = dict(a.split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
PROFILED = {"hf", "full", *filter(None, ARGS.get("--profile", "").split(","))}
ONLY = [g for g in ARGS.get("--groups", "").split(",") if g]
NAME = ARGS.get("--name")
GROUPS = {  # keyword arguments of apply_liger_kernel_to_qwen3; False = HF's code for that group
    "hf": None,
    "flce_only": dict(rope=False, rms_norm=False, swiglu=False, fused_linear_cross_entropy=True),
    "no_flce": dict(rope=True, rms_norm=True, swiglu=True, fused_linear_cross_entropy=False),
    "rope_only": dict(rope=True, rms_norm=False, swiglu=False, fused_linear_cross_entropy=False),
    "swiglu_only": dict(rope=False, rms_norm=False, swiglu=True, fused_linear_cross_entropy=False),
    "full": dict(),
    # FLCE for the loss, the decoder (Qwen3Model) under torch.compile: model.model.compile() in place
    "compile_flce": dict(rope=False, rms_norm=False, swiglu=False, fused_linear_cross_entropy=True),
}
GROUPS["compile_causal_flce"] = GROUPS["compile_flce"]  # compile_flce with train_step.causal_sdpa


def build(name, state, cfg):
    if name not in GROUPS:  # a train_step variant (compile, ours_fwd_bwd, ...), for a same-process baseline
        return ts.build_variant(name, state, ts.model_config(cfg))
    model = ts.build_variant("hf", state, ts.model_config(cfg))
    if name == "compile_causal_flce":
        ts.causal_sdpa(model)
    if GROUPS[name] is not None:
        from liger_kernel.transformers import apply_liger_kernel_to_qwen3

        apply_liger_kernel_to_qwen3(model=model, **GROUPS[name])
        if name.endswith("_flce") and name.startswith("compile"):
            model.model.compile()
    return model


def measure(name, state, batch, cfg):
    with ts.qwen3_globals_kept():
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        model = build(name, state, cfg)
        ts.run_steps(model, batch, 3)
        ms, losses, _ = ts.run_steps(model, batch, 10)
        out = {"group": name, "step_ms": sorted(ms)[len(ms) // 2], "peak_gb": torch.cuda.max_memory_allocated() / 1e9,
               "loss0": losses[0]}
        text = ""
        if name in PROFILED:
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                ts.run_steps(model, batch, 1)
            # GPU-side user annotations (e.g. Optimizer.step#AdamW.step) are CUDA events too, spanning
            # the kernels they enclose: keep kernels, memcpy and memset only
            events = [e for e in prof.events() if e.device_type.name == "CUDA"
                      and not getattr(e, "is_user_annotation", False) and not e.name.startswith("Optimizer.")]
            out["kernels_per_step"] = len(events)
            spans = [(e.time_range.start, e.time_range.end - e.time_range.start) for e in events]
            out["gpu_kernel_ms"] = sum(d for _, d in spans) / 1e3
            out["gpu_busy_ms"] = _union_ms(spans)  # time the GPU was running something
            out["attn_kernel_ms"] = sum(d for (_, d), e in zip(spans, events) if kernel_class(e.name) == "attention") / 1e3
            mm = [e for e in events if "gemm" in e.name.lower() or "sm90" in e.name.lower() or "nvjet" in e.name.lower()]
            out["gemm_kernels_per_step"] = len(mm)
            text = prof.key_averages().table(sort_by="device_time_total", row_limit=18, max_name_column_width=70)
        del model
        torch._dynamo.reset()
        return out, text


def main():
    cfgs = {"qwen3_0.6b_8l": ts.TRAIN_CONFIG, "qwen3_1.7b_6l": ts.TRAIN_CONFIG_1P7B}
    res = {"meta": bc.environment("python device_runs/liger_full_probe.py"), "configs": {}}
    texts = []
    for key, cfg in cfgs.items():
        state = ts.reference_state(cfg)
        batch = ts.make_batch(cfg)
        rows = []
        for name in ONLY or GROUPS:
            try:
                r, text = measure(name, state, batch, cfg)
            except Exception as exc:  # noqa: BLE001
                print(f"{key} {name} failed: {type(exc).__name__}: {exc}", flush=True)
                continue
            rows.append(r)
            print(key, json.dumps(r), flush=True)
            if text:
                texts.append(f"## {key} {name}\n{text}\n")
        res["configs"][key] = rows
    json_name, text_name = (f"{NAME}.json", f"{NAME}.txt") if NAME else ("h200_liger_full.json", "liger_full_profile.txt")
    bc.write_json(res, os.path.join(OUT, json_name))
    bc.write_text(os.path.join(OUT, text_name), bc.header(res["meta"], "key_averages per profiled group") + "\n".join(texts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
