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
