"""The scanner on model families beyond Qwen3, built from tiny random configs (no downloads)."""

import pytest
import torch
from families import FAMILIES, build_family, expectations
from qwen3_fusion.signals import scan


@pytest.mark.parametrize("model_type", sorted(FAMILIES))
def test_each_family_shows_its_norm_rope_activation_and_qkv(model_type):
    model = build_family(model_type)
    ids = torch.randint(0, 128, (1, 16), generator=torch.Generator().manual_seed(0))
    cands = scan(model, ids)  # called plainly: no use_cache, a bare tensor
    found = expectations(model_type, cands)
    assert all(found.values()), (found, [c.label for c in cands])
    assert cands and not cands[0].setup  # a mask or position chain never ranks first
    assert all(c.bytes_saved > 0 for c in cands)


@pytest.mark.parametrize("model_type", sorted(FAMILIES))
def test_each_family_scans_a_training_step(model_type):
    model = build_family(model_type).train()
    ids = torch.randint(0, 128, (1, 16), generator=torch.Generator().manual_seed(0))
    cands = scan(model, ids, {"labels": ids}, backward=True)
    backward = [c for c in cands if c.label.endswith(("(backward)", "(fwd+bwd)"))]
    assert backward, [c.label for c in cands]
    if FAMILIES[model_type][1] != "LayerNorm":  # nn.LayerNorm's backward is one aten op already
        # an RMSNorm written as elementwise ops: its backward is a chain to fuse
        assert any("norm" in c.label.lower() for c in backward), [c.label for c in cands]
    assert not cands[0].setup


def test_patterns_that_families_write_differently_are_found():
    def cands(model_type):
        model = build_family(model_type)
        return scan(
            model, torch.randint(0, 128, (1, 16), generator=torch.Generator().manual_seed(0))
        )

    # glm4: one gate_up Linear, then chunk and SwiGLU: still a GEMM epilogue
    glm4 = cands("glm4")
    assert any(c.kind == "gemm epilogue" and "gate_up_proj -> SwiGLU" in c.label for c in glm4)
    # mixtral: the experts' grouped GEMM on gate_up_proj, then chunk and SwiGLU (transformers
    # 5.17's grouped_mm path masks the padded rows first: "gate_up_proj -> masked_fill + SwiGLU")
    mixtral = cands("mixtral")
    assert any(
        c.kind == "gemm epilogue"
        and c.label.startswith("MixtralExperts: gate_up_proj -> ")
        and c.label.endswith("SwiGLU")
        for c in mixtral
    ), [c.label for c in mixtral]
    # cohere: the residual add joins a LayerNorm that starts with a mean (a reduction)
    cohere = cands("cohere")
    assert any({"residual add", "LayerNorm"} <= set(c.patterns) for c in cohere)
    labels = " ".join(c.label for c in cohere)
    assert "q_proj+k_proj+v_proj+gate_proj+up_proj" in labels  # parallel attention and MLP
    assert "CohereDecoderLayer: q_proj" in labels  # named after the layer that holds both


def test_a_family_without_sdpa_is_scanned_with_eager_and_says_so(tmp_path):
    from transformers import AutoConfig

    from qwen3_fusion.scan_cli import scan_config

    AutoConfig.for_model("bloom", vocab_size=128, hidden_size=64, n_head=4, n_layer=2).save_pretrained(
        tmp_path
    )
    cands, meta = scan_config(str(tmp_path), seq=16, dtype="float32", device="cpu")
    assert meta["attn"] == "eager" and "has no sdpa attention; scanned with eager" in meta["note"]
    assert cands
    with pytest.raises(Exception, match="does not support an attention implementation"):
        scan_config(str(tmp_path), seq=16, dtype="float32", device="cpu", attn="sdpa")


def test_labels_of_an_unrolled_scan_stay_short():
    from qwen3_fusion.patterns import LABEL_WORDS, compact

    assert compact(["exp", "mul", "add", "mul", "add", "mul", "add"], "·") == "exp·(mul·add)×3"
    assert compact(["matmul"] * 16, "+") == "matmul×16"
    assert compact(["q_proj", "k_proj", "v_proj"], "+") == "q_proj+k_proj+v_proj"  # no repeat
    assert compact(["cat", "cat", "reshape"], "·") == "cat·cat·reshape"  # two are left as they are
    many = [f"op{i}" for i in range(LABEL_WORDS + 4)]
    assert compact(many, "·").endswith("·… 4 more")
    model = build_family("mamba").train()
    ids = torch.randint(0, 128, (1, 16), generator=torch.Generator().manual_seed(0))
    cands = scan(model, ids, {"labels": ids}, backward=True)
    longest = max(len(c.label) for c in cands)
    assert longest < 400, max(cands, key=lambda c: len(c.label)).label
