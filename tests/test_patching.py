"""Tests of qwen3_fusion.patching on a tiny random Qwen3: patched and unpatched models must agree.

The model is fp32 so that tolerances can be tight; its Triton kernels run in the interpreter on
a CPU machine. Run: pytest tests/test_patching.py
"""

import copy

import pytest
import torch
from qwen3_fusion.patching import patch_qwen3_rmsnorm, unpatch_qwen3_rmsnorm
from qwen3_fusion.rmsnorm import TritonRMSNorm
from transformers import Qwen3Config, Qwen3ForCausalLM
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

LAYERS = 2
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def tiny_qwen3(seed=0, dtype=torch.float32):
    """A 2-layer Qwen3 with random weights, norm weights perturbed away from 1."""
    torch.manual_seed(seed)
    config = Qwen3Config(
        vocab_size=96,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=LAYERS,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        max_position_embeddings=32,
        attn_implementation="sdpa",
    )
    model = Qwen3ForCausalLM(config).to(DEVICE, dtype)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, Qwen3RMSNorm):
                m.weight.add_(0.3 * torch.randn_like(m.weight))
    return model


def batch(seed=1):
    ids = torch.randint(0, 96, (2, 12), generator=torch.Generator().manual_seed(seed)).to(DEVICE)
    return {"input_ids": ids, "labels": ids}


def loss_and_grads(model):
    model.zero_grad(set_to_none=True)
    loss = model(**batch()).loss
    loss.backward()
    return loss.detach(), {n: p.grad for n, p in model.named_parameters()}


def assert_grads_close(got, ref, rel):
    assert got.keys() == ref.keys()
    for name in ref:
        err = (got[name] - ref[name]).abs().max().item()
        assert err <= rel * ref[name].abs().max().item(), f"{name}: max error {err:.3g}"


def norms(model, cls):
    return [(n, m) for n, m in model.named_modules() if isinstance(m, cls)]


def test_patch_replaces_every_norm_and_keeps_weights():
    model = tiny_qwen3()
    before = dict(norms(model, Qwen3RMSNorm))
    assert len(before) == 1 + 4 * LAYERS  # final norm; input, post-attention, q_norm, k_norm
    assert patch_qwen3_rmsnorm(model) == len(before)
    after = dict(norms(model, TritonRMSNorm))
    assert not norms(model, Qwen3RMSNorm) and after.keys() == before.keys()
    assert "model.layers.0.self_attn.q_norm" in after and "model.layers.1.self_attn.k_norm" in after
    for name, new in after.items():
        assert new.weight is before[name].weight
        assert new.variance_epsilon == before[name].variance_epsilon


@pytest.mark.parametrize("backward", ["triton", "torch"])
def test_loss_and_grads_match_unpatched(backward):
    ref = tiny_qwen3()
    model = copy.deepcopy(ref)
    patch_qwen3_rmsnorm(model, backward=backward)
    loss, grads = loss_and_grads(model)
    ref_loss, ref_grads = loss_and_grads(ref)
    torch.testing.assert_close(loss, ref_loss, rtol=1e-5, atol=0)
    assert_grads_close(grads, ref_grads, rel=1e-5)


def test_one_training_step_matches_unpatched():
    ref = tiny_qwen3()
    model = copy.deepcopy(ref)
    patch_qwen3_rmsnorm(model)
    losses = []
    for m in (model, ref):
        opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
        loss_and_grads(m)
        opt.step()
        losses.append(loss_and_grads(m)[0])
    torch.testing.assert_close(losses[0], losses[1], rtol=1e-4, atol=0)


def test_bf16_model_loss_matches_unpatched():
    ref = tiny_qwen3(dtype=torch.bfloat16)
    model = copy.deepcopy(ref)
    patch_qwen3_rmsnorm(model)
    loss, grads = loss_and_grads(model)
    ref_loss, ref_grads = loss_and_grads(ref)
    torch.testing.assert_close(loss.float(), ref_loss.float(), rtol=2e-2, atol=0)
    assert all(torch.isfinite(g).all() for g in grads.values())


def test_state_dict_round_trips_both_ways():
    ref = tiny_qwen3()
    patched = tiny_qwen3(seed=5)
    patch_qwen3_rmsnorm(patched)
    assert list(patched.state_dict()) == list(ref.state_dict())
    patched.load_state_dict(ref.state_dict())
    plain = tiny_qwen3(seed=6)
    plain.load_state_dict(patched.state_dict())
    with torch.no_grad():
        logits = [m(**batch()).logits for m in (ref, patched, plain)]
    torch.testing.assert_close(logits[1], logits[0], rtol=1e-5, atol=1e-5)
    assert torch.equal(logits[2], logits[0])


def test_unpatch_restores_the_original_modules():
    model = tiny_qwen3()
    originals = dict(norms(model, Qwen3RMSNorm))
    n = patch_qwen3_rmsnorm(model)
    assert unpatch_qwen3_rmsnorm(model) == n
    assert not norms(model, TritonRMSNorm)
    restored = dict(norms(model, Qwen3RMSNorm))
    assert restored.keys() == originals.keys()
    assert all(restored[k] is originals[k] for k in originals)
    assert unpatch_qwen3_rmsnorm(model) == 0


def test_compile_fullgraph_matches_eager():
    """fullgraph=True fails on any graph break; aot_eager traces forward and backward through
    the custom ops' fake and autograd registrations (Inductor's CPU C++ build of a whole model
    would take about a minute here; test_rmsnorm compiles the module with Inductor)."""
    torch._dynamo.reset()
    model = tiny_qwen3()
    patch_qwen3_rmsnorm(model)
    loss, grads = loss_and_grads(model)
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    c_loss, c_grads = loss_and_grads(compiled)
    torch.testing.assert_close(c_loss, loss, rtol=1e-5, atol=0)
    assert_grads_close({k.removeprefix("_orig_mod."): v for k, v in c_grads.items()}, grads, 1e-5)
