"""Tests of qwen3_fusion.reading: counts, source spans, FX, export, profiles and traces."""

import json
from pathlib import Path

import pytest
import torch
import torchinfo
import transformers
from qwen3_fusion.configs import build_model, qwen3_config
from qwen3_fusion.reading import (
    ExportError,
    export_graph,
    fx_trace,
    github_url,
    launch_stats,
    op_calls,
    op_counts,
    op_kind,
    param_counts,
    profile_train_step,
    read_chrome_trace,
    save_chrome_trace,
    source_span,
)
from transformers.models.qwen3 import modeling_qwen3


def tiny(**overrides):
    return build_model(qwen3_config("qwen3-tiny", **overrides))


def test_param_counts_of_qwen3_0_6b_count_the_tied_embedding_once():
    model = build_model(qwen3_config("qwen3-0.6b"), device="meta")
    counts = param_counts(model)
    assert counts.unique == 596_049_920
    assert counts.per_name == 751_632_384
    # the difference is exactly one vocab x hidden matrix: lm_head.weight is embed_tokens.weight
    assert counts.per_name - counts.unique == 151936 * 1024
    assert counts.shared == (("model.embed_tokens.weight", "lm_head.weight"),)
    assert torchinfo.summary(model, verbose=0).total_params == counts.per_name


def test_param_counts_without_tying_agree():
    counts = param_counts(tiny(tie_word_embeddings=False))
    assert counts.unique == counts.per_name and counts.shared == ()


@pytest.mark.parametrize(
    "obj, keyword",
    [
        (modeling_qwen3.Qwen3RMSNorm, "class Qwen3RMSNorm("),
        (modeling_qwen3.Qwen3Attention, "class Qwen3Attention("),
        (modeling_qwen3.Qwen3MLP, "class Qwen3MLP("),
        (modeling_qwen3.apply_rotary_pos_emb, "def apply_rotary_pos_emb("),
    ],
)
def test_source_span_is_the_definition_in_the_installed_file(obj, keyword):
    span = source_span(obj)
    assert span.file == "transformers/models/qwen3/modeling_qwen3.py"
    lines = Path(modeling_qwen3.__file__).read_text(encoding="utf-8").split("\n")
    body = lines[span.start - 1 : span.end]
    assert any(ln.startswith(keyword) for ln in body)
    # the span starts at the decorator or the definition and ends where the next one begins
    assert body[0].startswith(("@", "class ", "def "))
    after = [ln for ln in lines[span.end :] if ln.strip()]
    assert not after or not after[0].startswith((" ", "\t"))
    url = github_url(span)
    assert f"/blob/v{transformers.__version__}/src/transformers/models/qwen3/" in url
    assert url.endswith(f"#L{span.start}-L{span.end}")


def test_github_url_only_for_transformers_files():
    with pytest.raises(ValueError, match="not a file of the transformers package"):
        github_url(source_span(torch.nn.Linear))


def test_fx_traces_mlp_and_norm_but_not_attention():
    layer = tiny().model.layers[0]
    gm, err = fx_trace(layer.mlp)
    assert err is None and "silu" in str(gm.graph)
    gm, err = fx_trace(layer.input_layernorm)
    assert err is None and "rsqrt" in str(gm.graph)
    # the error's type differs between torch versions (ValueError, TraceError): not asserted
    gm, err = fx_trace(layer.self_attn)
    assert gm is None and err and ": " in err
    # past the decorator, FX stops where Python needs real values: unpacking a shape
    gm, err = fx_trace(layer.self_attn, unwrap_forward=True)
    assert gm is None and "Proxy object cannot be iterated" in err
    assert type(layer.self_attn).__name__ == "Qwen3Attention"  # the module itself is unchanged


def test_export_counts_every_linear_and_attention():
    layers = 3
    model = build_model(qwen3_config("qwen3-tiny", num_hidden_layers=layers))
    ids = torch.zeros(1, 8, dtype=torch.long)
    counts = op_counts(export_graph(model, (ids,), {"use_cache": False}))
    assert counts["aten.linear.default"] == 7 * layers + 1  # q k v o gate up down + lm_head
    assert counts["aten.scaled_dot_product_attention.default"] == layers


def test_export_errors_are_one_clear_error():
    class DataDependent(torch.nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with pytest.raises(ExportError, match="torch.export rejected DataDependent"):
        export_graph(DataDependent(), (torch.randn(4),))
    with pytest.raises(ExportError, match="expected an nn.Module"):
        export_graph(lambda x: x, (torch.randn(4),))
    with pytest.raises(ExportError, match="must be a tuple"):
        export_graph(torch.nn.ReLU(), torch.randn(4))


@pytest.fixture(scope="module")
def step_profile():
    torch.manual_seed(0)
    return profile_train_step(tiny(), torch.randint(0, 256, (2, 16)))


def test_chrome_trace_has_complete_events_perfetto_can_show(step_profile, tmp_path):
    path = save_chrome_trace(step_profile, tmp_path / "sub" / "trace.json")
    data = json.loads(path.read_text())
    complete = [e for e in data["traceEvents"] if e.get("ph") == "X"]
    assert complete and all({"name", "ts", "dur"} <= e.keys() for e in complete)
    summary = read_chrome_trace(path)
    assert summary.phases["X"] == len(complete) and summary.events == len(data["traceEvents"])
    assert summary.names["aten::mm"] > 0  # the backward's matmuls are in it


def test_read_chrome_trace_rejects_what_is_not_a_trace(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    with pytest.raises(ValueError, match="not a JSON file"):
        read_chrome_trace(bad)
    bad.write_text(json.dumps({"events": []}))
    with pytest.raises(ValueError, match="no 'traceEvents' list"):
        read_chrome_trace(bad)
    bad.write_text(json.dumps({"traceEvents": [{"ph": "X", "name": "a", "ts": 1}]}))
    with pytest.raises(ValueError, match=r"traceEvents\[0\] \(ph X\) lacks dur"):
        read_chrome_trace(bad)


def test_op_calls_are_counts_sorted_most_called_first(step_profile):
    rows = op_calls(step_profile, top=5)
    assert len(rows) == 5 and all(name.startswith("aten::") for name, _ in rows)
    assert [c for _, c in rows] == sorted((c for _, c in rows), reverse=True)


def test_launch_stats_grow_by_a_fixed_amount_per_layer():
    ids = torch.randint(0, 256, (2, 16))
    stats = [launch_stats(profile_train_step(tiny(num_hidden_layers=n), ids)) for n in (1, 2, 3)]
    per_layer = [b.ops - a.ops for a, b in zip(stats, stats[1:], strict=False)]
    assert per_layer[0] == per_layer[1] > 0
    # a Linear costs 3 GEMMs in a training step (forward, grad input, grad weight): 7 per
    # layer, plus the attention forward and backward
    assert stats[1].gemm - stats[0].gemm == 7 * 3 + 2
    assert all(s.kernels == 0 and 0 < s.views < s.ops - s.gemm for s in stats)


@pytest.mark.parametrize(
    "name, kind",
    [
        ("aten::mm", "gemm"),
        ("aten::view", "view"),
        ("slice", "view"),
        ("split", "view"),
        ("aten::mul", "other"),
        ("cat", "other"),
        ("reshape", "maybe_copy"),
        ("aten::empty_strided", "view"),
        ("aten::_scaled_dot_product_flash_attention_for_cpu_backward", "gemm"),
        ("aten::_efficient_attention_backward", "gemm"),
    ],
)
def test_op_kind(name, kind):
    assert op_kind(name) == kind
