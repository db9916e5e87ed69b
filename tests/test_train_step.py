"""The training bench's compile_causal variant: sdpa gets is_causal=True and no mask tensor while
Dynamo traces (plain sdpa gets a mask tensor there), and the model computes what HF's does."""

import torch

from qwen3_fusion import bench_common as bc
from qwen3_fusion import train_step as ts


def _first_sdpa_call(model, ids):
    """(mask tensor given?, is_causal) of the first sdpa call while Dynamo traces `model`."""
    calls, real = [], torch.nn.functional.scaled_dot_product_attention

    def spy(*args, **kwargs):
        calls.append((kwargs.get("attn_mask") is not None, kwargs.get("is_causal")))
        return real(*args, **kwargs)

    torch.nn.functional.scaled_dot_product_attention = spy
    try:
        torch._dynamo.reset()
        torch.compile(model, backend="eager")(input_ids=ids, use_cache=False)
    finally:
        torch.nn.functional.scaled_dot_product_attention = real
        torch._dynamo.reset()
    return calls[0]


def test_compile_causal_drops_the_mask_and_keeps_the_logits(monkeypatch):
    monkeypatch.setattr(bc, "DEVICE", "cpu")
    config = ts.model_config(ts.SMOKE_CONFIG)
    hf = ts.build_variant("hf", None, config)
    compiled = ts.build_variant("compile_causal", hf.state_dict(), config)
    causal = compiled._orig_mod  # the module torch.compile wraps
    assert "compile_causal" in ts.TRAIN_VARIANTS and causal.config._attn_implementation == "sdpa_causal"
    ids = torch.randint(0, ts.SMOKE_CONFIG["vocab"], (2, 16), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert torch.equal(hf(input_ids=ids, use_cache=False).logits, causal(input_ids=ids, use_cache=False).logits)
    assert _first_sdpa_call(causal, ids) == (False, True)
    assert _first_sdpa_call(hf, ids)[0]  # plain sdpa: transformers builds a mask tensor under Dynamo
