"""The layer-trace capture (qwen3_fusion.trace_capture) on the CPU, and the committed H200 trace."""

import json
from pathlib import Path

import torch
from qwen3_fusion.configs import qwen3_config
from qwen3_fusion.trace_capture import LayerStep, fwd_bwd, main, outer_cpu_ops_only, trimmed_trace

TRACE = Path(__file__).resolve().parents[1] / "src_literate/results/h200_layer_trace.json"


def test_trimmed_trace_of_a_tiny_layer_keeps_cpu_ops_and_both_ranges():
    torch.manual_seed(0)
    config = qwen3_config("qwen3-tiny", num_hidden_layers=1)
    step = LayerStep(config, batch=2, seq=16, device="cpu").to(torch.bfloat16).train()
    x = torch.randn(2, 16, config.hidden_size, dtype=torch.bfloat16, requires_grad=True)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        fwd_bwd(step, x)
    events = trimmed_trace(prof)["traceEvents"]
    assert min(e["ts"] for e in events) == 0
    assert {"layer_forward", "layer_backward"} <= {e["name"] for e in events}
    outer = outer_cpu_ops_only(events)
    assert 0 < sum(e["cat"] == "cpu_op" for e in outer) < sum(e["cat"] == "cpu_op" for e in events)


def test_main_without_a_gpu_says_so(tmp_path, capsys):
    if torch.cuda.is_available():
        return
    assert main(["--out", str(tmp_path)]) == 2
    assert "CUDA" in capsys.readouterr().err


def test_the_committed_trace_is_small_and_says_where_it_comes_from():
    assert TRACE.stat().st_size < 1_000_000
    data = json.loads(TRACE.read_text(encoding="utf-8"))
    for key in ("gpu", "driver", "torch", "triton", "transformers", "date", "command"):
        assert data["meta"][key]
    cats = {e["cat"] for e in data["traceEvents"]}
    assert {"kernel", "cpu_op", "cuda_runtime"} <= cats
    assert all("graph_ms" in t and "eager_ms" in t for t in data["timings"])
