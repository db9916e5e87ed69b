"""Fold the per-run JSON (and profile text) files of device_runs/flce_chunks.py into one results file:
run 1 is results/h200_flce_chunks.json (2026-12-03), runs 2-14 are under
device_runs/h200_2026-12-04_flce_repeats/. Each row is one variant of one training-step config in one
fresh process: step time (median of 10 steps after 3), peak memory, and, where that run profiled the
variant, key_averages' "Self CUDA time total" and its cuDNN attention ops' time (runs 4-14), or the
sum of its kernel, memcpy and memset spans (gpu_kernel_ms, run 16: within 0.3% of the Self CUDA total
of the same variant in runs 4-12) and of its attention kernels (attn_kernel_ms, runs 15-16). The
profiled step is a fresh optimizer's first step, so it can take longer than the timed median.
Usage: python device_runs/merge_probe_runs.py  ->  src_literate/results/h200_train_probe.json"""

import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "generated"))
from qwen3_fusion import bench_common as bc  # noqa: E402

RUNS = os.path.join(HERE, "h200_2026-12-04_flce_repeats")
RESULTS = os.path.join(ROOT, "src_literate", "results")


def profiles(path: str) -> dict:
    """'## config group chunk_mem_const=C' sections -> {(group, C): {gpu_kernel_ms, attn_fwd_ms, attn_bwd_ms}}."""
    out, key = {}, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"## \S+ (\w+) chunk_mem_const=(\w+)$", line.strip())
        if m:
            key = (m.group(1), None if m.group(2) == "None" else int(m.group(2)))
            out[key] = {}
            continue
        if key is None:
            continue
        cells = line.split()
        if line.startswith("Self CUDA time total:"):
            out[key]["self_cuda_total_ms"] = float(cells[-1].rstrip("ms"))
        for op, field in (("aten::_cudnn_attention_backward", "attn_bwd_ms"),
                          ("aten::_cudnn_attention_forward", "attn_fwd_ms")):
            if cells and cells[0] == op:
                out[key][field] = float(cells[6].rstrip("ms")) if cells[6].endswith("ms") else float(cells[6].rstrip("us")) / 1e3
    return out


def main() -> int:
    rows, metas = [], []
    first = json.load(open(os.path.join(RESULTS, "h200_flce_chunks.json")))
    for config, r in first["configs"].items():  # config -> rows
        for row in r:
            rows.append({"config": config, "run": 1, **{k: row[k] for k in ("group", "chunk_mem_const", "step_ms", "peak_gb")}})
    metas.append(first["meta"])
    for path in sorted(glob.glob(os.path.join(RUNS, "**", "h200_flce_chunks_*_run*.json"), recursive=True)):
        res = json.load(open(path))
        metas.append(res["meta"])
        prof = profiles(path[:-5] + ".txt") if os.path.exists(path[:-5] + ".txt") else {}
        for row in res["rows"]:
            entry = {"config": res["config"], "run": row["run"],
                     **{k: row[k] for k in ("group", "chunk_mem_const", "step_ms", "peak_gb")}}
            entry.update(prof.get((row["group"], row["chunk_mem_const"]), {}))
            # from the run itself (runs 15+): kernels, memcpy and memset only, no annotation spans
            # run 15 dropped every kernel whose name holds "#" (ATen's lambda()#N copy kernels) from
            # its sums: only its attention time (cuDNN names hold no "#") is kept; run 16 is fixed
            keep = ("attn_kernel_ms",) if row["run"] == 15 else ("gpu_kernel_ms", "gpu_busy_ms", "attn_kernel_ms", "kernels_per_step")
            entry.update({k: row[k] for k in keep if k in row})
            rows.append(entry)
    keys = ("gpu", "driver", "cuda", "torch", "triton", "transformers", "liger_kernel")
    meta = {k: metas[-1][k] for k in keys}
    assert all(all(m[k] == meta[k] for k in keys) for m in metas), "runs on different software"
    meta["date"] = f"{min(m['date'] for m in metas)} to {max(m['date'] for m in metas)}"
    meta["command"] = "python device_runs/flce_chunks.py --run=N [--1.7b] [--todo=...]; python device_runs/merge_probe_runs.py"
    rows.sort(key=lambda r: (r["config"], r["group"], r["chunk_mem_const"] or 0, r["run"]))
    res = {"schema": 1, "meta": meta,
           "variants": {"hf": "HF eager", "compile": "torch.compile(model)",
                        "compile_causal": "torch.compile(model) with sdpa is_causal=True and no mask tensor",
                        "compile_flce": "Liger FLCE for the loss, model.model.compile() for the decoder",
                        "compile_causal_flce": "compile_flce with sdpa is_causal=True and no mask tensor",
                        "flce_only:C / full:C": "chunk_mem_const forced to C (Liger 0.8.5's Qwen3 lce_forward passes none: 1)",
                        "ours_fwd_bwd": "post 2's RMSNorm, forward and backward",
                        "flce_only": "Liger FLCE only", "no_flce": "Liger RoPE, RMSNorm, SwiGLU",
                        "full": "apply_liger_kernel_to_qwen3 defaults (FLCE included)"},
           "rows": rows}
    bc.write_json(res, os.path.join(RESULTS, "h200_train_probe.json"))
    print(f"{len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
