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
    assert (
        "compile_causal" in ts.TRAIN_VARIANTS
        and causal.config._attn_implementation == "sdpa_causal"
    )
    ids = torch.randint(
        0, ts.SMOKE_CONFIG["vocab"], (2, 16), generator=torch.Generator().manual_seed(0)
    )
    with torch.no_grad():
        assert torch.equal(
            hf(input_ids=ids, use_cache=False).logits, causal(input_ids=ids, use_cache=False).logits
        )
    assert _first_sdpa_call(causal, ids) == (False, True)
    assert _first_sdpa_call(hf, ids)[
        0
    ]  # plain sdpa: transformers builds a mask tensor under Dynamo


def test_compile_causal_refuses_a_padded_batch(monkeypatch):
    """Without a mask tensor, padding would be silently attended to: the mask function refuses it."""
    import pytest

    monkeypatch.setattr(bc, "DEVICE", "cpu")
    config = ts.model_config(ts.SMOKE_CONFIG)
    causal = ts.build_variant("compile_causal", None, config)._orig_mod
    ids = torch.randint(
        0, ts.SMOKE_CONFIG["vocab"], (2, 16), generator=torch.Generator().manual_seed(0)
    )
    mask = torch.ones_like(ids)
    with torch.no_grad():
        causal(input_ids=ids, attention_mask=mask, use_cache=False)  # all ones: nothing to mask
        mask[1, :3] = 0  # left padding in the second row
        with pytest.raises(ValueError, match="padding"):
            causal(input_ids=ids, attention_mask=mask, use_cache=False)


def _fake_liger(monkeypatch):
    """A stand-in for liger_kernel.ops.fused_linear_cross_entropy (not installed on CPU machines):
    its forward returns the chunk_mem_const it was called with."""
    import sys
    import types

    mod = types.ModuleType("liger_kernel.ops.fused_linear_cross_entropy")
    mod.fused_linear_cross_entropy_forward = lambda *args, chunk_mem_const=1, **kwargs: (
        chunk_mem_const
    )
    for name in ("liger_kernel", "liger_kernel.ops"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    sys.modules["liger_kernel.ops"].fused_linear_cross_entropy = mod
    sys.modules["liger_kernel"].ops = sys.modules["liger_kernel.ops"]
    return mod


def test_flce_chunk_mem_const_is_forced_then_restored(monkeypatch):
    mod = _fake_liger(monkeypatch)
    original = mod.fused_linear_cross_entropy_forward
    with ts.flce_chunks_kept():
        ts.force_flce_chunk_mem_const(16)
        assert (
            mod.fused_linear_cross_entropy_forward("x", "w", chunk_mem_const=1) == 16
        )  # the caller's 1 loses
        ts.force_flce_chunk_mem_const(
            4
        )  # a second variant wraps Liger's function, not the first wrapper
        assert mod.fused_linear_cross_entropy_forward("x", "w") == 4
        assert mod.fused_linear_cross_entropy_forward.__wrapped__ is original
    assert mod.fused_linear_cross_entropy_forward is original


def test_cli_refuses_a_chunk_mem_const_below_one(capsys):
    import pytest

    with pytest.raises(SystemExit) as exc:
        ts.main(["--variant", "flce", "--chunk-mem-const", "0"])
    assert (
        exc.value.code == 2
        and "--chunk-mem-const must be a positive integer, got 0" in capsys.readouterr().err
    )
    assert {"flce", "compile_causal_flce"} <= set(ts.TRAIN_VARIANTS)


def test_cli_liger_variants_patch_what_they_name(monkeypatch):
    """liger_no_flce asks Liger for everything but FLCE; liger_full_coarse for Liger's defaults with
    FLCE's chunk_mem_const forced (both are command-line variants, not in the bench's run)."""
    import sys
    import types

    mod = _fake_liger(monkeypatch)
    calls = []
    fake = types.ModuleType("liger_kernel.transformers")
    fake.apply_liger_kernel_to_qwen3 = lambda **kwargs: calls.append(
        (
            sorted(k for k in kwargs if k != "model"),
            kwargs.get("fused_linear_cross_entropy", True),
            mod.fused_linear_cross_entropy_forward(chunk_mem_const=1),
        )
    )
    monkeypatch.setitem(sys.modules, fake.__name__, fake)
    monkeypatch.setattr(bc, "DEVICE", "cpu")
    config = ts.model_config(ts.SMOKE_CONFIG)
    with ts.flce_chunks_kept():
        ts.build_variant("liger_no_flce", None, config)
        ts.build_variant("liger_full_coarse", None, config, chunk_mem_const=8)
    assert calls == [(["fused_linear_cross_entropy"], False, 1), ([], True, 8)]
    assert {"liger_no_flce", "liger_full_coarse"} <= set(
        ts.CLI_VARIANTS
    ) and "liger_no_flce" not in ts.TRAIN_VARIANTS


def test_compile_ro_marks_each_step_and_keeps_the_losses(monkeypatch):
    """compile_ro (reduce-overhead) steps: each is marked for CUDA-graph trees and its loss copied out;
    the losses equal plain compile's (on the CPU the graphs are skipped, the marking path still runs)."""
    monkeypatch.setattr(bc, "DEVICE", "cpu")
    monkeypatch.setattr(bc, "SMOKE", True)
    marks = []
    real_mark = torch.compiler.cudagraph_mark_step_begin
    monkeypatch.setattr(
        torch.compiler, "cudagraph_mark_step_begin", lambda: marks.append(1) or real_mark()
    )
    cfg = ts.SMOKE_CONFIG
    state = ts.reference_state(cfg)
    batch = ts.make_batch(cfg)
    torch._dynamo.reset()
    ro = ts.build_variant("compile_ro", state, ts.model_config(cfg))
    assert "compile_ro" in ts.CLI_VARIANTS and ro.cudagraph_steps
    _, ro_losses, _ = ts.run_steps(ro, batch, 2)
    assert len(marks) == 2
    torch._dynamo.reset()
    _, plain_losses, _ = ts.run_steps(
        ts.build_variant("compile", state, ts.model_config(cfg)), batch, 2
    )
    torch._dynamo.reset()
    assert all(abs(a - b) < 1e-4 for a, b in zip(ro_losses, plain_losses, strict=True))


def test_cli_refuses_a_non_positive_batch_or_seq():
    import pytest

    for flag in ("--batch", "--seq"):
        with pytest.raises(SystemExit) as exc:
            ts.main([flag, "0"])
        assert exc.value.code == 2


def test_qk_rope_variant_patches_every_attention_and_trains_like_hf(monkeypatch):
    """qk_rope: each Qwen3Attention runs the fused q/k norm + RoPE kernels; one bf16 step's loss stays
    within bf16 noise of HF's (the CPU interpreter truncates where the GPU rounds)."""
    monkeypatch.setattr(bc, "DEVICE", "cpu")
    monkeypatch.setattr(bc, "SMOKE", True)
    cfg = ts.SMOKE_CONFIG
    state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
    model = ts.build_variant("qk_rope", state, ts.model_config(cfg))
    attn = [m for m in model.modules() if type(m).__name__ == "Qwen3Attention"]
    assert attn and all(m.forward.__func__.__name__ == "_fused_attention_forward" for m in attn)
    assert {"qk_rope", "compile_causal_qk_rope"} <= set(ts.CLI_VARIANTS)
    _, fused, _ = ts.run_steps(model, batch, 1)
    _, hf, _ = ts.run_steps(ts.build_variant("hf", state, ts.model_config(cfg)), batch, 1)
    assert abs(fused[0] - hf[0]) < 0.02 * abs(hf[0])


def test_qk_sep_swaps_rope_and_only_the_q_k_norms(monkeypatch):
    """qk_sep, qk_rope's control: Liger's RoPE (nothing else of its patch) and Liger's RMSNorm on
    every layer's q_norm and k_norm, none of the other norms."""
    import sys
    import types

    calls, patched = [], []
    fake = types.ModuleType("liger_kernel.transformers")
    fake.apply_liger_kernel_to_qwen3 = lambda **kwargs: calls.append(
        {k: v for k, v in kwargs.items() if k != "model"}
    )
    mp = types.ModuleType("liger_kernel.transformers.monkey_patch")
    mp._patch_rms_norm_module = patched.append
    monkeypatch.setitem(sys.modules, "liger_kernel", types.ModuleType("liger_kernel"))
    monkeypatch.setitem(sys.modules, fake.__name__, fake)
    monkeypatch.setitem(sys.modules, mp.__name__, mp)
    monkeypatch.setattr(bc, "DEVICE", "cpu")
    model = ts.build_variant("qk_sep", None, ts.model_config(ts.SMOKE_CONFIG))
    assert calls == [{"rms_norm": False, "swiglu": False, "fused_linear_cross_entropy": False}]
    want = [n for layer in model.model.layers for n in (layer.self_attn.q_norm, layer.self_attn.k_norm)]
    assert len(patched) == 2 * ts.SMOKE_CONFIG["layers"] and all(
        a is b for a, b in zip(patched, want, strict=True)
    )
    assert "qk_sep" in ts.CLI_VARIANTS and "qk_sep" not in ts.TRAIN_VARIANTS
