"""Tests of the fusion scanner: known answers on toy models, Qwen3's classic points, bad input."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import qwen3_fusion
import torch
from qwen3_fusion.configs import ConfigError, build_model, load_config, qwen3_config
from qwen3_fusion.fusion_groups import is_symbolic
from qwen3_fusion.reading import ExportError
from qwen3_fusion.signals import GPUS, format_bytes, format_table, main, scan, total
from torch import nn


class FiveOps(nn.Module):
    """A leaf module whose forward is a chain of five elementwise ops."""

    def forward(self, x):
        return torch.relu(torch.sin(x * 2.0 + 1.0)) - 3.0


class LinearThenFiveOps(nn.Module):
    """The same chain after a Linear, one op per line."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(32, 32)

    def forward(self, x):
        y = self.lin(x)
        y = y * 2.0
        y = y + 1.0
        y = torch.sin(y)
        y = torch.relu(y)
        return y - 3.0


class TwoHeads(nn.Module):
    """Two Linears that read the same input."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(32, 16), nn.Linear(32, 8)

    def forward(self, x):
        return self.a(x), self.b(x)


X = torch.randn(64, 32)  # 8192 bytes in float32


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_a_gpu_the_profile_counts_kernels_and_cpu_time():
    # the CUDA profile holds each node's range twice (CPU side, GPU side); the CPU one counts
    (c,) = scan(FiveOps(), (X.cuda(),))
    assert c.launches == 5  # one elementwise kernel per op, its range's annotation not counted
    assert c.instances[0].cpu_us > 0 and c.instances[0].device_us > 0


@pytest.mark.parametrize("model", [FiveOps(), LinearThenFiveOps()])
def test_a_chain_of_five_elementwise_ops_is_flagged(model):
    cands = [c for c in scan(model, (X,)) if c.kind == "memory-bound chain"]
    assert len(cands) == 1
    c = cands[0]
    assert c.kind == "memory-bound chain" and c.ops == ("mul", "add", "sin", "relu", "sub")
    assert {"small_kernels", "memory_bound_chain", "one_step"} <= set(c.signals)
    assert "repeated" not in c.signals
    assert c.launches == 5  # profiled: one data-moving aten op per node on the CPU
    # unfused: five ops read and write 8192 bytes each; fused: read x once, write y once
    assert (c.bytes_unfused, c.bytes_fused) == (5 * 2 * 8192, 2 * 8192)
    assert c.instances[0].source.startswith("test_signals.py:")


def test_a_lone_matmul_is_not_flagged():
    assert scan(nn.Linear(32, 32), (X,)) == []


def test_matmuls_sharing_an_input_read_it_once_when_merged():
    (c,) = scan(TwoHeads(), (X,))
    assert c.kind == "shared-input matmuls" and c.label == "TwoHeads: a+b"
    assert c.bytes_unfused - c.bytes_fused == 8192  # x is read once instead of twice
    assert "one_step" in c.signals and "memory_bound_chain" not in c.signals


LAYERS = 2


def _tiny(attn="sdpa", train=False):
    model = build_model(
        qwen3_config("qwen3-tiny", num_hidden_layers=LAYERS),
        dtype=torch.bfloat16,
        attn_implementation=attn,
    )
    return model.train(train)


IDS = torch.randint(0, 256, (2, 32), generator=torch.Generator().manual_seed(0))
MASK = torch.ones(2, 32, dtype=torch.long).index_fill_(1, torch.arange(28, 32), 0)  # padding


@pytest.fixture(scope="module", params=["sdpa", "eager", "train", "mask"])
def qwen3_tiny_candidates(request):
    """Qwen3 tiny scanned as users call it: HF's default sdpa, eager, train mode with labels
    (the loss), and with a padding attention mask."""
    case = request.param
    model = _tiny("eager" if case == "eager" else "sdpa", train=case == "train")
    kwargs = {"labels": IDS} if case == "train" else {}
    if case == "mask":
        kwargs["attention_mask"] = MASK
    return case, scan(model, IDS, kwargs)  # a bare tensor is one input; use_cache is added


def _find(cands, pred):
    found = [c for c in cands if pred(c)]
    assert len(found) == 1, [c.label for c in cands]
    return found[0]


def _line(source):
    """The source text of 'file:line' (first line of a span)."""
    from transformers.models.qwen3 import modeling_qwen3

    line = int(source.rsplit(":", 1)[1].split("-")[0])
    return open(modeling_qwen3.__file__, encoding="utf-8").read().split("\n")[line - 1]


def _norm_modules(cands) -> list:
    """Every RMSNorm module some candidate covers (one entry per instance)."""
    found = []
    for c in cands:
        for i in c.instances:
            if c.module_type == "Qwen3RMSNorm":
                found.append(i.module)
    return found


def test_every_rmsnorm_rope_and_swiglu_is_found(qwen3_tiny_candidates):
    # the bug this guards: a merged group's id reused, so later groups overwrote earlier ones
    case, cands = qwen3_tiny_candidates
    chains = [c for c in cands if c.kind == "memory-bound chain"]
    rms_ops = ("pow", "mean", "add", "rsqrt", "mul", "mul")
    covered = 0
    for c in chains:
        ops = [o for o in c.ops if o != "to"]  # bf16 <-> fp32 casts
        covered += c.occurrences * sum(
            ops[i : i + len(rms_ops)] == list(rms_ops) for i in range(len(ops))
        )
    assert covered == 4 * LAYERS + 1, (case, [c.label for c in chains])
    # RoPE on q and on k (one rotate_half cat each), joined with the q/k norms feeding them;
    # transformers 5.24 gives one group per layer (q, k share cos and sin), 5.17 two
    ropes = [c for c in chains if "cat" in c.ops and c.module_type == "Qwen3Attention"]
    assert sum(c.ops.count("cat") * c.occurrences for c in ropes) == 2 * LAYERS
    assert all(c.occurrences == LAYERS for c in ropes)
    labels = " ".join(c.label for c in ropes)
    assert "RMSNorm(q_norm, k_norm)" in labels and "RoPE" in labels  # named, not op soup
    assert all({"RMSNorm", "RoPE"} <= set(c.patterns) for c in ropes)
    rope = ropes[0]
    swiglu = _find(chains, lambda c: c.ops == ("silu", "mul"))
    assert swiglu.module_type == "Qwen3MLP" and "one_step" in swiglu.signals
    qkv = _find(cands, lambda c: c.label.endswith("q_proj+k_proj+v_proj"))
    assert qkv.kind == "shared-input matmuls" and qkv.occurrences == LAYERS
    for c in (rope, swiglu, qkv):
        assert "repeated" in c.signals and c.bytes_fused < c.bytes_unfused


def test_residual_add_joins_the_norm_after_it(qwen3_tiny_candidates):
    _, cands = qwen3_tiny_candidates
    post = _find(
        cands, lambda c: c.label.endswith("residual add + RMSNorm(post_attention_layernorm)")
    )
    assert post.patterns == ("residual add", "RMSNorm")
    assert post.occurrences == LAYERS and post.ops[0] == "add"
    assert "hidden_states = residual + hidden_states" in _line(post.instances[0].source)
    # the add closing one layer and the norm opening the next (or the final norm)
    nxt = _find(cands, lambda c: c.label.endswith("residual add + RMSNorm(input_layernorm)"))
    final = _find(cands, lambda c: c.label.endswith("residual add + RMSNorm(norm)"))
    assert nxt.occurrences == LAYERS - 1 and final.occurrences == 1


def test_mask_and_position_chains_do_not_rank_first(qwen3_tiny_candidates):
    case, cands = qwen3_tiny_candidates
    assert not cands[0].setup
    for c in cands:
        if c.setup:  # reported only when they would save a lot, and after everything else
            assert c.bytes_saved >= 64 << 10 and c.rank > sum(not d.setup for d in cands)
    assert [c.rank for c in cands] == list(range(1, len(cands) + 1))
    top = [c.us_saved for c in cands if not c.setup and not c.parent]
    assert top == sorted(top, reverse=True), case  # most time saved per step first


def test_eager_attention_shows_the_softmax_chain():
    cands = scan(_tiny("eager"), IDS)
    softmax = _find(cands, lambda c: "softmax" in c.ops)
    assert "attention_interface(" in _line(softmax.instances[0].source)
    assert softmax.occurrences == LAYERS


def test_with_labels_lm_head_and_cross_entropy_are_one_candidate():
    cands = scan(_tiny(), IDS, {"labels": IDS})
    ce = _find(cands, lambda c: "cross_entropy_loss" in c.ops and c.kind == "gemm epilogue")
    assert ce.kind == "gemm epilogue" and ce.label.startswith("Qwen3ForCausalLM: lm_head ->")
    # the bf16 logits are never written, nor their fp32 copy, nor the log-probs
    logits = 2 * 32 * 256
    assert ce.bytes_saved >= logits * 2 + logits * 4 * 2
    assert "one_step" in ce.signals


def test_train_flag_scans_forward_and_backward(capsys):
    assert main(["--config", "qwen3-tiny", "--seq", "8", "--train", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["meta"]["train"] is True
    labels = [c["label"] for c in data["candidates"]]
    # RMSNorm's backward, with the gradient of the residual stream added in, and SwiGLU's
    assert "Qwen3RMSNorm (backward)" in labels
    assert "Qwen3MLP: SwiGLU (backward)" in labels
    # the loss: lm_head, log-softmax, nll and their backward in one fused kernel (Liger's FLCE)
    ce = [c for c in data["candidates"] if "nll_loss_backward" in c["ops"]]
    assert any(c["kind"] == "gemm epilogue" and "lm_head" in c["label"] for c in ce)
    # a Linear's two backward GEMMs both read dY: not a merge candidate
    assert not any("+gate_proj" in lb for lb in labels)


def test_backward_needs_a_loss():
    with pytest.raises(ExportError, match="needs a loss"):
        scan(_tiny(), IDS[:, :8], backward=True)


def test_traffic_of_rmsnorm_at_qwen3_0_6b_shapes_without_weights():
    seq = 128
    model = build_model(
        qwen3_config("qwen3-0.6b", num_hidden_layers=1), device="meta", dtype=torch.bfloat16
    )
    ids = torch.zeros(1, seq, dtype=torch.long, device="meta")
    cands = scan(model, (ids,))
    norm = _find(cands, lambda c: c.module_type == "Qwen3RMSNorm")
    (first,) = norm.instances
    assert first.module.endswith("input_layernorm")
    # fused: read x and the weight, write y, all bf16; unprofiled: one launch per op
    assert first.bytes_fused == 2 * seq * 1024 * 2 + 1024 * 2
    assert first.launches == len(norm.ops) and first.cpu_us == 0


def test_table_lists_every_candidate_with_its_signals():
    cands = scan(_tiny(), IDS)
    lines = format_table(cands).split("\n")
    assert "1-step" in lines[0] and "saved" in lines[0]
    rows = [ln for ln in lines[2:] if ln[:3].strip().isdigit()]
    assert len(rows) == len(cands)
    assert rows[0].split()[:2] == ["1", cands[0].label.split()[0]]


class OneLine(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate, self.up, self.act = nn.Linear(32, 64), nn.Linear(32, 64), nn.SiLU()

    def forward(self, x):
        return self.act(self.gate(x)) * self.up(x) + 1.0


class TwoLines(OneLine):
    def forward(self, x):
        g = self.act(self.gate(x))
        h = g * self.up(x)
        return h + 1.0


def test_results_do_not_depend_on_how_many_lines_the_code_takes():
    def shape(model):
        return [(c.kind, c.ops, c.signals, c.bytes_unfused, c.bytes_fused) for c in scan(model, X)]

    one = shape(OneLine())
    assert one == shape(TwoLines())
    assert ("memory-bound chain", ("silu", "mul", "add")) in [r[:2] for r in one]


class LinearGelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc, self.out = nn.Linear(32, 128), nn.Linear(128, 32)

    def forward(self, x):
        return self.out(nn.functional.gelu(self.fc(x)))


def test_a_gemm_epilogue_is_found():
    (c,) = [c for c in scan(LinearGelu(), X) if c.kind == "gemm epilogue"]
    assert c.ops == ("linear", "gelu") and c.label == "LinearGelu: fc -> GELU"
    # the fc output (64 x 128 fp32) is neither written nor read back
    assert c.bytes_saved == 2 * 64 * 128 * 4


class DataDependentRows(nn.Module):
    def forward(self, x):
        rows = x[x[:, 0] > 0]  # as many rows as the data says
        return torch.sin(rows * 2.0) + 1.0


def test_sizes_that_depend_on_data_stay_symbols():
    cands = scan(DataDependentRows(), X)
    c = _find(cands, lambda c: c.ops[-3:] == ("mul", "sin", "add"))
    assert is_symbolic(c.bytes_unfused) and is_symbolic(c.bytes_saved)
    assert "u" in format_bytes(c.bytes_saved)  # printed as a symbol, e.g. "256*u0 B"
    assert format_table(cands).count("\n") >= 2
    data = json.loads(json.dumps(c.to_dict()))
    assert isinstance(data["bytes_unfused"], str)


def test_a_bare_tensor_and_an_hf_call_without_use_cache_work():
    cands = scan(_tiny(), IDS[:, :8])  # no kwargs: the scanner passes use_cache=False
    assert any(c.module_type == "Qwen3RMSNorm" for c in cands)
    with pytest.raises(ExportError, match="example inputs must be a tensor or a tuple"):
        scan(_tiny(), 3)


def test_encoder_decoder_models_ask_for_decoder_inputs():
    from transformers import T5Config, T5ForConditionalGeneration

    config = T5Config(
        vocab_size=64,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=1,
        num_heads=4,
        decoder_start_token_id=0,
    )
    model = T5ForConditionalGeneration(config).eval()
    ids = torch.randint(0, 64, (1, 8))
    with pytest.raises(ExportError, match="encoder-decoder model: pass decoder inputs"):
        scan(model, ids)
    assert scan(model, ids, {"decoder_input_ids": ids})  # then it scans


def test_the_small_kernel_threshold_decides_signal_1():
    (c,) = scan(FiveOps(), (X,), small_bytes=1)  # no kernel moves less than one byte
    assert "small_kernels" not in c.signals and "memory_bound_chain" in c.signals


def test_a_module_without_source_is_still_scanned():
    namespace = {"torch": torch, "nn": nn}
    exec(  # a forward whose source file export cannot read: no stack trace is recorded
        "class Hidden(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = nn.Linear(32, 32)\n"
        "    def forward(self, x):\n"
        "        return torch.sin(self.lin(x) * 2.0)\n",
        namespace,
    )
    (c,) = scan(namespace["Hidden"](), (X,))
    assert c.ops == ("mul", "sin") and c.instances[0].source == "?"
    assert c.label == "Hidden: mul·sin"


def test_scan_rejects_what_export_rejects():
    class DataDependent(nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with pytest.raises(ExportError, match="rejected DataDependent"):
        scan(DataDependent(), (X,))
    with pytest.raises(ExportError, match="expected an nn.Module"):
        scan("not a model", (X,))


def test_cli_json_carries_the_run_metadata(capsys):
    assert main(["--config", "qwen3-tiny", "--seq", "16", "--json", "--top", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    meta, cands = data["meta"], data["candidates"]
    assert meta["model"] == "Qwen3ForCausalLM" and meta["seq"] == 16 and meta["batch"] == 1
    assert (meta["dtype"], meta["device"], meta["profiled"]) == ("bfloat16", "cpu", True)
    assert [d["rank"] for d in cands] == [1, 2]
    keys = {"label", "signals", "instances", "bytes_unfused", "bytes_fused", "bytes_saved"}
    assert keys <= cands[0].keys()
    assert cands[0]["bytes_saved"] == cands[0]["bytes_unfused"] - cands[0]["bytes_fused"]
    assert "cpu_us" not in cands[0]["instances"][0]  # no timings unless --timings


def test_a_full_size_config_is_scanned_on_meta_unless_asked(capsys):
    assert main(["--config", "qwen3-0.6b", "--layers", "12", "--dtype", "float32", "--json"]) == 0
    out = capsys.readouterr()
    meta = json.loads(out.out)["meta"]
    assert (meta["device"], meta["profiled"]) == ("meta", False)
    assert out.err.count("\n") == 1 and "scanned on meta" in out.err


def test_cli_table_has_saved_and_where_and_whole_words(capsys):
    assert main(["--config", "qwen3-tiny", "--seq", "16"]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert "saved" in lines[0] and "where" in lines[0]
    rows = [ln for ln in lines[2:] if ln[:3].strip().isdigit()]
    assert all("modeling_qwen3.py:" in ln for ln in rows)
    words = " ".join(ln[4:46] for ln in lines[2:] if ln.strip())
    assert "post_attention_layernorm" in words  # a long label wraps between words


@pytest.mark.parametrize(
    "args, message",
    [
        (["--config", "no/such/config.json"], "no such config file"),
        (["--config", "{bad}"], "not a JSON config file"),
        (["--config", "{list}"], "not a Hugging Face model config"),
        (["--config", "{other}"], "unknown model_type 'nonesuch'"),
        (["--config", "{lama}"], "close: llama"),
        (["--config", "{act}"], "unknown hidden_act 'nonsense'"),
        (["--config", "{emptydir}"], "a folder without a config.json"),
        (["--config", "qwen3-tiny", "--layers", "100000"], "more than its 2 layers"),
        (["--config", "qwen3-tiny", "--device", "cpu", "--max-gb", "0.0001"], "--device meta"),
        (["--config", "{llama7b}", "--device", "cpu", "--max-gb", "8"], "13.5 GB of weights"),
        (["--config", "qwen3-tiny", "--seq", "0"], "must be > 0"),
        (["--config", "qwen3-tiny", "--layers", "-1"], "must be > 0"),
        (["--config", "qwen3-tiny", "--top", "0"], "must be > 0"),
        (["--config", "qwen3-tiny", "--small-mb", "nan"], "must be > 0"),
        (["--config", "qwen3-tiny", "--small-mb", "x"], "invalid float value"),
        (["--config", "{heads}"], "{heads}"),
        (["--config", "{vocab0}"], "vocab_size must be a positive integer"),
        (["--config", "qwen3-tiny", "--seq", "many"], "invalid int value"),
        (["--config", "qwen3-tiny", "--device", "cuda:0"], "no CUDA device"),
        (["--config", "qwen3-tiny", "--device", "nowhere"], "cannot build a model on nowhere"),
        (["--seq", "8"], "--config"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_code_2(args, message, tmp_path, capsys):
    llama = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "vocab_size": 64}
    files = {
        "{bad}": "{not json",
        "{list}": "[1, 2]",
        "{other}": '{"model_type": "nonesuch"}',
        "{lama}": '{"model_type": "lama"}',
        "{emptydir}": None,
        "{act}": json.dumps({**llama, "num_attention_heads": 4, "hidden_act": "nonsense"}),
        "{llama7b}": json.dumps(
            {
                **llama,
                "hidden_size": 4096,
                "intermediate_size": 11008,
                "num_attention_heads": 32,
                "num_hidden_layers": 32,
                "vocab_size": 32000,
            }
        ),
        "{heads}": json.dumps({**llama, "num_attention_heads": 5, "num_hidden_layers": 1}),
        "{vocab0}": json.dumps({**llama, "num_attention_heads": 4, "vocab_size": 0}),
    }
    for key, text in files.items():
        if text is None:
            (tmp_path / key).mkdir()
        else:
            (tmp_path / key).write_text(text)
    message = str(tmp_path / message) if message in files else message
    args = [str(tmp_path / a) if a in files else a for a in args]
    if torch.cuda.is_available() and "cuda:0" in args:
        pytest.skip("this machine has a GPU")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "error:" in err and "Traceback" not in err
    assert len(err) < 400  # one readable line, not transformers' list of every model type
    path = next((str(tmp_path / a) for a in files if a in " ".join(args)), None)
    assert path is None or err.count(path) == 1  # the path once


def test_python_dash_m_runs_the_cli():
    package_root = Path(qwen3_fusion.__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(package_root))
    cmd = [sys.executable, "-m", "qwen3_fusion.signals", "--config", "missing.json"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.strip().count("\n") == 0 and "no such config file" in res.stderr


def test_load_config_builds_any_hf_model_type(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps(
            {
                "model_type": "llama",
                "hidden_size": 64,
                "num_hidden_layers": 3,
                "num_attention_heads": 4,
                "intermediate_size": 128,
                "vocab_size": 128,
            }
        )
    )
    config = load_config(str(path), num_hidden_layers=1)
    assert type(config).__name__ == "LlamaConfig" and config.num_hidden_layers == 1
    with pytest.raises(ConfigError, match="unknown built-in config"):
        qwen3_config("qwen3-huge")


def test_contained_candidates_nest_under_the_larger_one_and_the_total_sums_the_top():
    cands = scan(_tiny(), IDS)
    epi = _find(cands, lambda c: c.label == "Qwen3MLP: gate_proj+up_proj -> SwiGLU")
    children = [c for c in cands if c.parent == epi.rank]
    assert {c.label for c in children} == {"Qwen3MLP: SwiGLU", "Qwen3MLP: gate_proj+up_proj"}
    assert all(c.rank > epi.rank for c in children)  # listed right under it
    assert all(c.bytes_saved < epi.bytes_saved for c in children)
    summed = total(cands)
    top = [c for c in cands if not c.parent]
    assert summed["bytes_saved"] == sum(c.bytes_saved for c in top)
    assert summed["bytes_saved"] < sum(c.bytes_saved for c in cands)  # nested rows not counted
    table = format_table(cands)
    assert "└ Qwen3MLP: SwiGLU" in table and "total of the top-level rows" in table


def test_time_saved_is_bytes_at_the_copy_bandwidth_plus_launches():
    cands = scan(_tiny(), IDS, profile=False, gbps=1.0, launch_us=2.0)
    for c in cands:
        assert c.us_saved == pytest.approx(c.bytes_saved / 1e3 + 2.0 * c.launches_saved)
    default = {c.label: c.us_saved for c in scan(_tiny(), IDS, profile=False)}
    h200 = GPUS["h200"]
    c = cands[0]
    expect = c.bytes_saved / (h200["gbps"] * 1e3) + h200["launch_us"] * c.launches_saved
    assert default[c.label] == pytest.approx(expect)


def test_h200_cost_model_is_what_the_h200_measured():
    """The bandwidth is the copy's. The default launch term is 0: the measured training step is
    GPU-bound (the host issues HF eager's step in less than the step time), so launches hide;
    the exposed host time per kernel of one small layer ((eager - graph replay) / kernels at
    1 x 128) is what --launch-us takes when the host is the bottleneck."""
    results = Path(__file__).resolve().parents[1] / "src_literate" / "results"
    h200 = json.loads((results / "h200.json").read_text(encoding="utf-8"))
    assert GPUS["h200"]["gbps"] == pytest.approx(h200["copy"]["gbps"], abs=0.5)
    hf = next(r for r in h200["train_steps"]["qwen3_0.6b_8l"] if r["variant"] == "hf")
    assert hf["host_issue_ms"] < hf["step_ms"] and GPUS["h200"]["launch_us"] == 0
    trace = json.loads((results / "h200_layer_trace.json").read_text(encoding="utf-8"))
    kernels = sum(e["cat"] == "kernel" for e in trace["traceEvents"])
    t = next(t for t in trace["timings"] if (t["batch"], t["seq"]) == (1, 128))
    assert round((t["eager_ms"] - t["graph_ms"]) * 1e3 / kernels) == 46


def test_launch_us_zero_is_an_override_and_the_default():
    with_launch = scan(_tiny(), IDS, profile=False, launch_us=5.0)
    zero = {c.label: c.us_saved for c in scan(_tiny(), IDS, profile=False, launch_us=0.0)}
    default = {c.label: c.us_saved for c in scan(_tiny(), IDS, profile=False)}
    assert zero == default
    c = with_launch[0]
    assert c.launches_saved > 0 and c.us_saved == pytest.approx(zero[c.label] + 5 * c.launches_saved)
    assert main(["--config", "qwen3-tiny", "--seq", "8", "--json", "--launch-us", "0"]) == 0


def test_sdpa_on_meta_leaves_the_math_path_softmax_out(capsys):
    model = build_model(
        qwen3_config("qwen3-0.6b", num_hidden_layers=1), device="meta", dtype=torch.bfloat16
    )
    ids = torch.zeros(1, 64, dtype=torch.long, device="meta")
    assert not any("softmax" in c.patterns for c in scan(model, (ids,)))
    argv = ["--config", "qwen3-0.6b", "--layers", "1", "--device", "meta", "--seq", "64"]
    assert main(argv) == 0
    assert "softmax chain is left out" in capsys.readouterr().err


class MMBiasGelu(nn.Module):
    """A GEMM written as torch.matmul on a parameter, in the root module."""

    def __init__(self):
        super().__init__()
        self.w, self.b = nn.Parameter(torch.randn(32, 64)), nn.Parameter(torch.zeros(64))

    def forward(self, x):
        return nn.functional.gelu(torch.matmul(x, self.w) + self.b)


def test_labels_name_gemms_by_weight_and_patterns_by_their_source():
    (c,) = [c for c in scan(MMBiasGelu(), X) if c.kind == "gemm epilogue"]
    assert c.label == "MMBiasGelu: w -> GELU"  # was "MMBiasGelu:  -> matmul + add·gelu"
    eager = scan(_tiny("eager"), IDS)
    assert any("softmax" in c.patterns for c in eager)
    train = scan(_tiny(train=True), IDS, {"labels": IDS}, backward=True)
    labels = [c.label for c in train]
    assert not any(lb.startswith("Linear (") for lb in labels), labels  # says which Linear
    assert any("cross-entropy" in c.patterns for c in train)


def test_inductor_column_says_what_torch_compile_fuses():
    (chain,) = scan(FiveOps(), X, inductor=True)
    assert chain.inductor == "fused"  # Inductor writes the five ops as one kernel
    (merge,) = scan(TwoHeads(), X, inductor=True)
    assert merge.inductor == "not"  # two GEMM calls, each reading x
    epi = [c for c in scan(LinearGelu(), X, inductor=True) if c.kind == "gemm epilogue"]
    assert epi[0].inductor == "not"  # on CPU the GEMM is a library call; GELU runs after it
    qwen = scan(_tiny(), IDS[:, :8], inductor=True)
    status = {c.label: c.inductor for c in qwen}
    assert status["Qwen3RMSNorm"] == "fused" and status["Qwen3MLP: SwiGLU"] == "fused"
    assert status["Qwen3Attention: q_proj+k_proj+v_proj"] == "not"
    assert all(c.inductor in ("fused", "partly", "not") for c in qwen)


def test_cli_json_schema_and_inductor_flag(capsys, tmp_path):
    folder = tmp_path / "checkpoint"  # a checkpoint folder is accepted as the config
    folder.mkdir()
    config = dict(model_type="llama", hidden_size=64, intermediate_size=128, vocab_size=64)
    config.update(num_attention_heads=4, num_hidden_layers=1)
    (folder / "config.json").write_text(json.dumps(config))
    argv = ["--config", str(folder), "--seq", "8", "--json", "--inductor", "--launch-us", "5"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema_version"] == 2 and data["meta"]["inductor"] is True
    assert data["meta"]["inductor_backend"] == "cpu"  # a bare --inductor means the CPU backend
    assert data["meta"]["launch_us"] == 5 and data["meta"]["gpu"] == "h200"
    cands = data["candidates"]
    assert all(c["inductor"] in ("fused", "partly", "not") for c in cands)
    top = [c for c in cands if c["parent"] == 0]
    assert data["total"]["bytes_saved"] == sum(c["bytes_saved"] for c in top)
    for key in ("patterns", "parent", "us_saved", "launches_saved", "inductor"):
        assert key in cands[0]


def test_inductor_backend_is_checked_before_any_work(capsys):
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(ValueError, match="needs a CUDA device"):
        scan(FiveOps(), X, inductor=True, inductor_backend="cuda")
    with pytest.raises(ValueError, match="choose one of cpu, cuda"):
        scan(FiveOps(), X, inductor=True, inductor_backend="tpu")
    assert main(["--config", "qwen3-tiny", "--inductor", "cuda"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no CUDA device" in err, err
    assert main(["--config", "qwen3-tiny", "--inductor", "tpu"]) == 2  # argparse: invalid choice


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_inductor_cuda_backend_fuses_the_chain():
    (chain,) = scan(FiveOps(), X, inductor=True, inductor_backend="cuda")
    assert chain.inductor == "fused"  # Triton codegen: the five pointwise ops in one kernel
    qwen = scan(_tiny(), IDS[:, :8], inductor=True, inductor_backend="cuda")
    status = {c.label: c.inductor for c in qwen}
    assert status["Qwen3RMSNorm"] == "fused" and status["Qwen3MLP: SwiGLU"] == "fused"


def test_indexed_reads_count_the_picked_elements_not_the_whole_tensor():
    """nll_loss reads one log-probability per target, an embedding the rows it picks, and
    nll_loss_backward never reads the log-probabilities it is handed (for their shape only)."""
    import torch.nn.functional as F
    from qwen3_fusion.fusion_groups import _read_bytes, op_name, tensor_bytes
    from qwen3_fusion.signals import joint_graph

    class Loss(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(5000, 32)
            self.head = nn.Linear(32, 1000)

        def forward(self, ids, target):
            logits = self.head(self.emb(ids)).float()
            return F.nll_loss(logits.log_softmax(-1).flatten(0, 1), target.flatten())

    ids, target = torch.randint(0, 5000, (2, 32)), torch.randint(0, 1000, (2, 32))
    gm = joint_graph(Loss(), (ids, target), {})[0]
    nodes = {op_name(n): n for n in gm.graph.nodes if n.op == "call_function"}
    fwd, bwd, emb = nodes["nll_loss_forward"], nodes["nll_loss_backward"], nodes["embedding"]
    logp = fwd.args[0]
    assert tensor_bytes(logp.meta["val"]) == 64 * 1000 * 4
    assert _read_bytes(fwd, logp) == 64 * 4  # one fp32 per target
    assert _read_bytes(fwd, fwd.args[1]) == 64 * 8  # the int64 targets, whole
    assert _read_bytes(bwd, bwd.args[1]) == 0  # handed for its shape
    assert _read_bytes(bwd, bwd.args[0]) == tensor_bytes(bwd.args[0].meta["val"])
    assert _read_bytes(emb, emb.args[0]) == 64 * 32 * 4  # 64 rows of the 5000


def test_inductor_column_judges_forward_and_backward_apart():
    """torch.compile compiles a training step as two graphs: a chain spanning both passes is at
    best one kernel each way, and the column calls that fused (it said partly when it counted the
    two kernels together)."""
    train = scan(_tiny(train=True), IDS, {"labels": IDS}, backward=True, inductor=True)
    both = [c for c in train if c.label.endswith("(fwd+bwd)") and c.patterns == ("RMSNorm",)]
    assert both, [c.label for c in train]
    assert all(c.inductor == "fused" for c in both), [(c.label, c.inductor) for c in both]
