# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""Capture one Qwen3 decoder layer's forward + backward on a GPU as a small Chrome trace.

`python -m qwen3_fusion.trace_capture --out DIR [--batch 4 --seq 2048]` builds a decoder layer
with Qwen3-0.6B shapes and random weights, profiles one iteration (after warm-up) with torch.profiler and writes
DIR/layer_trace.json: the kernels, CPU ops, launch calls and ranges of that iteration (a Chrome
trace Perfetto opens), a `meta` block, and eager vs CUDA-graph timings of the same layer.

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§三); every block below is marked with its chunk.
"""

__all__ = [
    "KEEP",
    "LayerStep",
    "build",
    "capture",
    "fwd_bwd",
    "main",
    "outer_cpu_ops_only",
    "timings",
    "trimmed_trace",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::trace_head
import argparse
import datetime
import json
import sys
import tempfile
from pathlib import Path

import torch
import transformers
from transformers.models.qwen3 import modeling_qwen3 as mq

from qwen3_fusion.configs import qwen3_config

KEEP = ("kernel", "gpu_memcpy", "gpu_memset", "cpu_op", "cuda_runtime", "user_annotation",
        "gpu_user_annotation")  # fmt: skip


# %% src_literate/post1_qwen3_fusion_reading.pmd::trace_layer
class LayerStep(torch.nn.Module):
    """One decoder layer called the way Qwen3Model calls it (sdpa, causal, no cache)."""

    def __init__(self, config, batch: int, seq: int, device="cuda"):
        super().__init__()
        config._attn_implementation = "sdpa"
        self.layer = mq.Qwen3DecoderLayer(config, layer_idx=0)
        rotary = mq.Qwen3RotaryEmbedding(config).to(device)
        x = torch.zeros(batch, seq, config.hidden_size, device=device, dtype=torch.bfloat16)
        pos = torch.arange(seq, device=device).unsqueeze(0)
        self.cos, self.sin = rotary(x, pos)

    def forward(self, x):
        out = self.layer(x, attention_mask=None, position_embeddings=(self.cos, self.sin))
        return out[0] if isinstance(out, tuple) else out


def build(batch: int, seq: int, seed: int = 0):
    """The layer on CUDA in bf16 with random weights, and a hidden-states input."""
    torch.manual_seed(seed)
    config = qwen3_config("qwen3-0.6b", num_hidden_layers=1)
    step = LayerStep(config, batch, seq).cuda().to(torch.bfloat16).train()
    x = torch.randn(batch, seq, config.hidden_size, device="cuda", dtype=torch.bfloat16)
    return step, x.requires_grad_()


def fwd_bwd(step, x):
    """Forward, a scalar loss, backward; ranges name the two halves for the timeline."""
    with torch.profiler.record_function("layer_forward"):
        y = step(x)
    with torch.profiler.record_function("layer_backward"):
        y.float().pow(2).mean().backward()
    step.zero_grad(set_to_none=True)
    x.grad = None


# %% src_literate/post1_qwen3_fusion_reading.pmd::trace_trim
def trimmed_trace(prof) -> dict:
    """The profile's Chrome trace cut to the event kinds in KEEP and the launch -> kernel flow
    arrows (ph "s"/"f", cat "ac2g"), without per-event args except what links a launch to its
    kernel; timestamps start at 0."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.json"
        prof.export_chrome_trace(str(path))
        data = json.loads(path.read_text())
    events = [e for e in data["traceEvents"] if e.get("ph") == "X" and e.get("cat") in KEEP]
    flows = [e for e in data["traceEvents"] if e.get("ph") in ("s", "f") and e.get("cat") == "ac2g"]
    t0 = min(e["ts"] for e in events)
    out = []
    for e in events + flows:
        args = e.get("args", {})
        small = {k: args[k] for k in ("correlation", "stream") if k in args}
        ev = {k: e[k] for k in ("name", "cat", "ph", "pid", "tid", "id", "bp") if k in e}
        ev["ts"] = round(e["ts"] - t0, 3)
        if "dur" in e:
            ev["dur"] = round(e["dur"], 3)
        if small:
            ev["args"] = small
        out.append(ev)
    return {"traceEvents": sorted(out, key=lambda e: e["ts"])}


def outer_cpu_ops_only(events: list) -> list:
    """Drop CPU ops that run inside another CPU op of the same thread (to keep a trace small)."""
    kept, open_until = [], {}
    for e in events:  # sorted by ts
        if e["cat"] == "cpu_op":
            if e["ts"] < open_until.get(e["tid"], -1.0):
                continue
            open_until[e["tid"]] = e["ts"] + e["dur"]
        kept.append(e)
    return kept


# %% src_literate/post1_qwen3_fusion_reading.pmd::trace_timings
def timings(batch: int, seq: int, iters: int = 20) -> dict:
    """fwd+bwd ms per iteration: eager (what a training loop pays) and CUDA-graph replay of the
    same kernels (GPU time without launch cost)."""
    step, x = build(batch, seq)
    for _ in range(3):
        fwd_bwd(step, x)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fwd_bwd(step, x)
    end.record()
    torch.cuda.synchronize()
    result = {"batch": batch, "seq": seq, "eager_ms": start.elapsed_time(end) / iters}
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                step(x).float().pow(2).mean().backward()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step(x).float().pow(2).mean().backward()
        graph.replay()
        torch.cuda.synchronize()
        start.record()
        for _ in range(iters):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        result["graph_ms"] = start.elapsed_time(end) / iters
    except Exception as e:  # noqa: BLE001 - recorded, not fatal
        result["graph_error"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return result


# %% src_literate/post1_qwen3_fusion_reading.pmd::trace_main
def capture(batch: int = 4, seq: int = 2048) -> dict:
    """Profile one fwd+bwd of the layer after 3 warm-up iterations; the trimmed trace + meta."""
    step, x = build(batch, seq)
    for _ in range(3):
        fwd_bwd(step, x)
    torch.cuda.synchronize()
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        fwd_bwd(step, x)
        torch.cuda.synchronize()
    trace = trimmed_trace(prof)
    trace["meta"] = {
        "gpu": torch.cuda.get_device_name(),
        "driver": _driver(),
        "torch": torch.__version__,
        "triton": _version("triton"),
        "transformers": transformers.__version__,
        "date": datetime.date.today().isoformat(),
        "command": f"python -m qwen3_fusion.trace_capture --out DIR --batch {batch} --seq {seq}",
        "what": f"one Qwen3DecoderLayer (0.6B shapes, sdpa), bf16, batch {batch} x seq {seq}, "
        "forward + backward of mean(y^2), after 3 warm-up iterations",
    }
    trace["timings"] = [timings(batch, seq), timings(1, 128)]
    return trace


def _version(name: str) -> str:
    try:
        return __import__(name).__version__
    except ImportError:
        return "not installed"


def _driver() -> str:
    try:
        import pynvml  # nvidia-ml-py

        pynvml.nvmlInit()
        return pynvml.nvmlSystemGetDriverVersion()
    except Exception:  # noqa: BLE001
        return "unknown"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m qwen3_fusion.trace_capture")
    parser.add_argument("--out", required=True, help="folder for layer_trace.json")
    parser.add_argument("--batch", type=int, default=4, help="sequences per step (default 4)")
    parser.add_argument("--seq", type=int, default=2048, help="tokens per sequence (default 2048)")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("trace_capture needs a CUDA GPU", file=sys.stderr)
        return 2
    out = Path(args.out) / "layer_trace.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    trace = capture(args.batch, args.seq)
    text = json.dumps(trace, separators=(",", ":"))
    if len(text) > 1_000_000:  # a small file to commit: keep only the outermost CPU ops
        trace["traceEvents"] = outer_cpu_ops_only(trace["traceEvents"])
        trace["meta"]["trimmed"] = "CPU ops nested in another CPU op dropped"
        text = json.dumps(trace, separators=(",", ":"))
    out.write_text(text, encoding="utf-8")
    kinds = {}
    for e in trace["traceEvents"]:
        kinds[e["cat"]] = kinds.get(e["cat"], 0) + 1
    print(out, out.stat().st_size, "bytes", kinds, trace["timings"])
    return 0


if __name__ == "__main__" and globals().get("__file__", "").endswith("trace_capture.py"):
    sys.exit(main())
