# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""Artifacts post 1 reads: the Inductor code for Qwen3RMSNorm, a profiled HF training step, and
one decoder layer's trace (through qwen3_fusion.trace_capture).

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "inductor_rmsnorm_code",
    "kernel_class",
    "layer_trace",
    "profile_hf_step",
    "summarize_trace",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_artifacts_head
import json
import os
import tempfile

import torch

from qwen3_fusion import bench_common as bc


def inductor_rmsnorm_code(rows: int = 8192, n: int = 1024) -> tuple[str, dict]:
    """The code Inductor writes for torch.compile(Qwen3RMSNorm), forward and backward."""
    from torch._inductor.utils import run_and_get_code
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    from qwen3_fusion.bench_norms import rmsnorm_inputs

    torch._dynamo.reset()
    x, w, dy = rmsnorm_inputs(rows, n, torch.bfloat16)
    mod = Qwen3RMSNorm(n, eps=bc.EPS).to(device=bc.DEVICE, dtype=torch.bfloat16)
    compiled = torch.compile(mod, dynamic=False)
    xg = x.requires_grad_()
    _, codes = run_and_get_code(lambda: compiled(xg).backward(dy))
    parts = [
        f"# ===== graph {i} of {len(codes)} =====\n{bc.strip_paths(c)}" for i, c in enumerate(codes)
    ]
    info = {"rows": rows, "n": n, "dtype": "bfloat16", "graphs": len(codes),
            "triton_kernels": sum(c.count("@triton.jit") for c in codes),
            "extern_reductions": sum(c.count("torch.sum(") + c.count("aten.sum") for c in codes)}  # fmt: skip
    torch._dynamo.reset()
    return "\n".join(parts), info


def kernel_class(name: str) -> str:
    """gemm / attention / memcpy (copy engine) / copy (cast, copy, cat kernels) / optimizer /
    elementwise-or-reduction, from a GPU kernel's or memcpy event's name."""
    low = name.lower()
    if low.startswith(("memcpy", "memset")):
        return "memcpy"
    # attention first: memory-efficient sdpa kernels are named fmha_cutlass*; cuDNN's (transformer
    # training runs no cuDNN convolutions) include backward helpers such as cudnn::fusion::convert_dq_to_16bits
    if any(k in low for k in ("flash", "fmha", "attention", "sdpa", "cudnn")):
        return "attention"
    if any(k in low for k in ("gemm", "cutlass", "sm90_xmma", "cublas", "nvjet")):
        return "gemm"
    if low.startswith(("triton_poi_", "triton_per_", "triton_red_")):
        return "elementwise_reduction"  # Inductor's fused kernels: "_to_copy" in a name is one fused op
    if any(k in low for k in ("copy", "catarray", "cat_")):
        return "copy"
    if "adam" in low or "multi_tensor" in low:
        return "optimizer"
    return "elementwise_reduction"


def _union_ms(spans) -> float:
    """Total length in ms of the union of (start_us, dur_us) intervals."""
    total, end = 0.0, float("-inf")
    for s, d in sorted(spans):
        if s + d > end:
            total += s + d - max(s, end)
            end = s + d
    return total / 1e3


def summarize_trace(events: list, short_us: float = 10.0) -> dict:
    """Numbers for launch overhead from the Chrome trace events of one profiled step."""
    spans = [e for e in events if e.get("ph") == "X"]
    gpu = [e for e in spans if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    kernels = [e for e in gpu if e["cat"] == "kernel"]
    short = [e for e in kernels if e["dur"] < short_us]
    cpu_ops = [(e["ts"], e["dur"]) for e in spans if e.get("cat") == "cpu_op"]
    launches = [e for e in spans if e.get("cat") in ("cuda_runtime", "cuda_driver")
                and "Launch" in e.get("name", "")]  # fmt: skip
    step = [
        e["dur"]
        for e in spans
        if e.get("name") == "train_step" and e.get("cat") == "user_annotation"
    ]
    kernel_us = sum(e["dur"] for e in kernels)
    gpu_us = sum(e["dur"] for e in gpu)
    by_name, by_class = {}, {}
    for e in gpu:
        c, t = by_name.get(e["name"], (0, 0.0))
        by_name[e["name"]] = (c + 1, t + e["dur"])
        k = kernel_class(e["name"])
        by_class[k] = by_class.get(k, 0.0) + e["dur"]
    top = sorted(by_name.items(), key=lambda kv: -kv[1][0])[:10]
    return {
        "kernels": len(kernels), "short_threshold_us": short_us, "short_kernels": len(short),
        "short_share": len(short) / max(1, len(kernels)),
        "short_time_share": sum(e["dur"] for e in short) / max(1e-9, kernel_us),
        "gpu_kernel_ms": kernel_us / 1e3, "gpu_busy_ms": _union_ms([(e["ts"], e["dur"]) for e in gpu]),
        "time_share_by_class": {k: v / max(1e-9, gpu_us) for k, v in sorted(by_class.items())},
        "cpu_op_ms": _union_ms(cpu_ops), "launch_calls": len(launches),
        "step_wall_ms": step[0] / 1e3 if step else None,
        "memcpy_memset": sum(1 for e in gpu if e["cat"] != "kernel"),
        "top_kernels_by_count": [{"name": k[:120], "count": c, "total_us": t,
                                  "class": kernel_class(k)} for k, (c, t) in top],
        "note": "one HF eager training step under torch.profiler (CPU+CUDA); cpu_op_ms is the union "
        "of cpu_op spans over all threads; profiler overhead inflates CPU times",
    }  # fmt: skip


# %% src_literate/post2_triton_rmsnorm.pmd::bench_artifacts_profile_hf_step
def profile_hf_step(cfg: dict) -> dict:
    """Kernel count, share of short kernels, class shares, CPU-op vs GPU time of one HF eager step."""
    from torch.profiler import ProfilerActivity, profile, record_function

    from qwen3_fusion.train_step import build_variant, make_batch, model_config

    torch.manual_seed(cfg["seed"])
    model = build_variant("hf", None, model_config(cfg))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=not bc.SMOKE)
    batch = make_batch(cfg)

    def step():
        model(input_ids=batch, labels=batch).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(3):
        step()
    bc.sync()
    acts = [ProfilerActivity.CPU] + ([] if bc.SMOKE else [ProfilerActivity.CUDA])
    with profile(activities=acts) as prof:
        with record_function("train_step"):
            step()
        bc.sync()
    with tempfile.TemporaryDirectory() as d:
        prof.export_chrome_trace(os.path.join(d, "trace.json"))
        with open(os.path.join(d, "trace.json"), encoding="utf-8") as f:
            events = json.load(f)["traceEvents"]
    return summarize_trace(events)


def layer_trace(meta: dict) -> str:
    """One Qwen3-0.6B decoder layer's fwd+bwd trace with launch -> kernel flow events, as JSON text."""
    from qwen3_fusion.trace_capture import capture, outer_cpu_ops_only

    trace = capture()
    trace["meta"] = {**meta, "what": trace["meta"]["what"]}
    text = json.dumps(trace, separators=(",", ":"), allow_nan=False)
    if len(text) > 1_000_000:  # a small file to commit: keep only the outermost CPU ops
        trace["traceEvents"] = outer_cpu_ops_only(trace["traceEvents"])
        trace["meta"]["trimmed"] = "CPU ops nested in another CPU op dropped"
        text = json.dumps(trace, separators=(",", ":"), allow_nan=False)
    return text
