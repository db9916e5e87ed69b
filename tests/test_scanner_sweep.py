"""Defects a sweep over transformers' causal-LM families found, kept fixed (tiny configs, CPU)."""

import warnings

import pytest
import torch
from families import SMALL
from qwen3_fusion.patterns import _ROPE
from qwen3_fusion.reading import ExportError
from qwen3_fusion.scan_cli import main
from qwen3_fusion.signals import scan
from transformers import AutoConfig, AutoModelForCausalLM

IDS = torch.randint(3, 128, (1, 16), generator=torch.Generator().manual_seed(0))


def build(model_type, attn="sdpa", **kw):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = AutoConfig.for_model(model_type, **kw)
        return AutoModelForCausalLM.from_config(config, attn_implementation=attn).eval()


@pytest.mark.parametrize(
    "name,rope",
    [("SolarOpenMLP", False), ("solar_open", False), ("Europe", False), ("property", False),
     ("apply_rotary_pos_emb", True), ("rotate_half", True), ("Qwen3RotaryEmbedding", True),
     ("apply_rope", True), ("LlamaRope", True), ("RoPEScaling", True)],
)  # fmt: skip
def test_rope_is_a_word_in_a_name_not_a_substring(name, rope):
    assert bool(_ROPE.search(name)) is rope


def test_a_class_name_that_contains_rope_is_no_rope():
    model = build("solar_open", **SMALL, head_dim=16, n_routed_experts=4,
                  num_experts_per_tok=2, moe_intermediate_size=32, n_group=1, topk_group=1)  # fmt: skip
    cands = scan(model, IDS)
    rope = [c.label for c in cands if "RoPE" in c.patterns]
    assert rope and all(label.startswith("SolarOpenAttention") for label in rope), rope
    assert any("SwiGLU" in c.patterns for c in cands)


def test_dropout_after_an_activation_is_no_gated_unit():
    model = build("xlnet", "eager", vocab_size=128, d_model=64, n_layer=2, n_head=4, d_inner=128)
    cands = scan(model.train(), IDS, {"labels": IDS}, backward=True)
    assert not any(p.endswith("GLU") for c in cands for p in c.patterns), [c.label for c in cands]
    assert any("GELU" in c.patterns for c in cands)


def test_a_composite_config_scans_through_the_cli(tmp_path, capsys):
    config = AutoConfig.for_model(
        "gemma3",
        text_config=dict(SMALL, head_dim=16),
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                           num_attention_heads=2, image_size=28, patch_size=14),
    )  # fmt: skip
    config.save_pretrained(tmp_path)
    assert main(["--config", str(tmp_path), "--seq", "16", "--layers", "1", "--top", "2"]) == 0
    assert "RMSNorm" in capsys.readouterr().out


def test_a_training_step_that_cannot_be_traced_is_one_export_error():
    reformer = dict(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    is_decoder=True, axial_pos_shape=[4, 4], axial_pos_embds_dim=[32, 32],
                    attn_layers=["local", "local"], local_attn_chunk_length=8,
                    feed_forward_size=128, attention_head_size=16)  # fmt: skip
    model = build("reformer", "eager", **reformer).train()
    with pytest.raises(ExportError, match="ReformerModelWithLMHead: its training step"):
        scan(model, IDS, {"labels": IDS}, backward=True)
