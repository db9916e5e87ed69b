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
from qwen3_fusion.reading import ExportError
from qwen3_fusion.signals import SIGNALS, format_table, main, scan
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
    assert c.launches == 5  # one elementwise kernel per op
    assert c.instances[0].cpu_us > 0 and c.instances[0].device_us > 0


@pytest.mark.parametrize("model", [FiveOps(), LinearThenFiveOps()])
def test_a_chain_of_five_elementwise_ops_is_flagged(model):
    cands = scan(model, (X,))
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


@pytest.fixture(scope="module")
def qwen3_tiny_candidates():
    layers = 2
    model = build_model(
        qwen3_config("qwen3-tiny", num_hidden_layers=layers),
        dtype=torch.bfloat16,
        attn_implementation="eager",
    )
    ids = torch.randint(0, 256, (1, 32))
    return layers, scan(model, (ids,), {"use_cache": False})


def _find(cands, pred):
    found = [c for c in cands if pred(c)]
    assert len(found) == 1, [c.label for c in cands]
    return found[0]


def _line(source):
    """The source text of 'file:line' (first line of a span)."""
    from transformers.models.qwen3 import modeling_qwen3

    line = int(source.rsplit(":", 1)[1].split("-")[0])
    return open(modeling_qwen3.__file__, encoding="utf-8").read().split("\n")[line - 1]


def test_qwen3_rmsnorm_all_four_signals(qwen3_tiny_candidates):
    layers, cands = qwen3_tiny_candidates
    c = _find(cands, lambda c: c.module_type == "Qwen3RMSNorm")
    assert c.occurrences == 4 * layers + 1  # input, post-attention, q, k per layer + final norm
    assert c.ops == ("to", "pow", "mean", "add", "rsqrt", "mul", "to", "mul")
    assert set(c.signals) == set(SIGNALS)
    modules = {i.module.rsplit(".", 1)[-1] for i in c.instances}
    assert modules == {"input_layernorm", "post_attention_layernorm", "q_norm", "k_norm", "norm"}


def test_qwen3_rope_swiglu_softmax_qkv(qwen3_tiny_candidates):
    layers, cands = qwen3_tiny_candidates
    rope = _find(cands, lambda c: "cat" in c.ops and c.module_type == "Qwen3Attention")
    assert "apply_rotary_pos_emb(" in _line(rope.instances[0].source)
    assert rope.ops.count("cat") == 2  # q and k are rotated in one group: they share cos, sin
    swiglu = _find(cands, lambda c: c.ops == ("silu", "mul"))
    assert swiglu.module_type == "Qwen3MLP" and "one_step" in swiglu.signals
    softmax = _find(cands, lambda c: "softmax" in c.ops)
    assert "attention_interface(" in _line(softmax.instances[0].source)
    assert "one_step" not in softmax.signals  # the matmuls around it belong to the same line
    qkv = _find(cands, lambda c: c.label.endswith("q_proj+k_proj+v_proj"))
    assert qkv.kind == "shared-input matmuls" and qkv.occurrences == layers
    for c in (rope, swiglu, softmax, qkv):
        assert c.occurrences == layers and "repeated" in c.signals
        assert c.bytes_fused < c.bytes_unfused


def test_traffic_of_rmsnorm_at_qwen3_0_6b_shapes_without_weights():
    seq = 128
    model = build_model(
        qwen3_config("qwen3-0.6b", num_hidden_layers=1),
        device="meta",
        dtype=torch.bfloat16,
        attn_implementation="eager",
    )
    ids = torch.zeros(1, seq, dtype=torch.long, device="meta")
    cands = scan(model, (ids,), {"use_cache": False})
    norm = _find(cands, lambda c: c.module_type == "Qwen3RMSNorm")
    first = next(i for i in norm.instances if i.module.endswith("input_layernorm"))
    # fused: read x and the weight, write y, all bf16; unprofiled: one launch per op
    assert first.bytes_fused == 2 * seq * 1024 * 2 + 1024 * 2
    assert first.launches == len(norm.ops) and first.cpu_us == 0


def test_table_lists_every_candidate_with_its_signals(qwen3_tiny_candidates):
    _, cands = qwen3_tiny_candidates
    lines = format_table(cands).split("\n")
    assert len(lines) == len(cands) + 2 and "1-step" in lines[0]
    assert lines[2].split()[:2] == ["1", cands[0].label.split()[0]]


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
    assert c.label == "Hidden mul·sin"


def test_scan_rejects_what_export_rejects():
    class DataDependent(nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with pytest.raises(ExportError, match="rejected DataDependent"):
        scan(DataDependent(), (X,))
    with pytest.raises(ExportError, match="expected an nn.Module"):
        scan("not a model", (X,))


def test_cli_json(capsys):
    assert main(["--config", "qwen3-tiny", "--seq", "16", "--json", "--top", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["rank"] for d in data] == [1, 2]
    assert {"label", "signals", "instances", "bytes_unfused", "bytes_fused"} <= data[0].keys()
    assert "cpu_us" not in data[0]["instances"][0]  # no timings unless --timings


@pytest.mark.parametrize(
    "args, message",
    [
        (["--config", "no/such/config.json"], "no such config file"),
        (["--config", "{bad}"], "not a JSON config file"),
        (["--config", "{list}"], "not a Hugging Face model config"),
        (["--config", "{other}"], "not a config transformers can build"),
        (["--config", "qwen3-tiny", "--seq", "0"], "must be >= 1"),
        (["--config", "qwen3-tiny", "--seq", "many"], "invalid int value"),
        (["--config", "qwen3-tiny", "--device", "cuda:0"], "no CUDA device"),
        (["--config", "qwen3-tiny", "--device", "nowhere"], "cannot build a model on nowhere"),
        (["--seq", "8"], "--config"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_code_2(args, message, tmp_path, capsys):
    files = {"{bad}": "{not json", "{list}": "[1, 2]", "{other}": '{"model_type": "nonesuch"}'}
    for key, text in files.items():
        (tmp_path / key).write_text(text)
    args = [str(tmp_path / a) if a in files else a for a in args]
    if torch.cuda.is_available() and "cuda:0" in args:
        pytest.skip("this machine has a GPU")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "error:" in err


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
