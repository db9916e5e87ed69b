"""Tests of qwen3_fusion.qk_norm_rope: q_norm / k_norm + RoPE fused, against Qwen3's own modules.

Runs in Triton's interpreter on a CPU (tests/conftest.py); bf16 is left out there because the
interpreter truncates instead of rounding, so fp16 carries the bitwise comparison with HF.
"""

import pytest
import torch
from qwen3_fusion.qk_norm_rope import BLOCK_M, qk_norm_rope
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm, apply_rotary_pos_emb

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
EPS = 1e-6


def rotary(b: int, s: int, d: int, dtype, seed: int):
    """cos, sin of shape (b, s, d) as Qwen3RotaryEmbedding builds them (two equal halves)."""
    g = torch.Generator().manual_seed(seed)
    ang = torch.randn(b, s, d // 2, generator=g) * 3
    emb = torch.cat([ang, ang], dim=-1)
    return emb.cos().to(DEVICE, dtype), emb.sin().to(DEVICE, dtype)


def hf_reference(x, weight, cos, sin, with_norm=False):
    """Qwen3Attention's path for q: q_norm on (b, s, h, d), transpose, apply_rotary_pos_emb."""
    norm = Qwen3RMSNorm(x.shape[-1], eps=EPS).to(DEVICE, weight.dtype)
    with torch.no_grad():
        norm.weight.copy_(weight)
    q = norm(x).transpose(1, 2)
    out, _ = apply_rotary_pos_emb(q, q, cos, sin)
    return (out.transpose(1, 2), norm) if with_norm else out.transpose(1, 2)


def float64_reference(x, weight, cos, sin):
    """The same math in float64 with no intermediate rounding: the gradient reference."""
    h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS)
    n = (weight * h).transpose(1, 2)
    out, _ = apply_rotary_pos_emb(n, n, cos, sin)
    return out.transpose(1, 2)


@pytest.mark.parametrize("shape", [(2, 5, 3, 16), (1, 7, 5, 128)])  # rows not a multiple of BLOCK_M
def test_fp16_forward_is_bitwise_hf(shape):
    b, s, h, d = shape
    assert (b * s * h) % BLOCK_M
    g = torch.Generator().manual_seed(sum(shape))
    x = (torch.randn(shape, generator=g) * 2).to(DEVICE, torch.float16)
    w = (torch.rand(d, generator=g) + 0.5).to(DEVICE, torch.float16)
    cos, sin = rotary(b, s, d, torch.float16, seed=d)
    y = qk_norm_rope(x, w, cos, sin, EPS)
    assert y.shape == x.shape and torch.isfinite(y).all()
    assert torch.equal(y, hf_reference(x, w, cos, sin))


@pytest.mark.parametrize("rope_dtype", [torch.float32, torch.float16])
def test_fp32_weight_with_fp16_x_follows_hf_promotion(rope_dtype):
    """Autocast keeps the norm weight fp32 while q_proj's output is half: HF's output is then fp32."""
    b, s, h, d = 2, 5, 3, 32
    g = torch.Generator().manual_seed(23)
    x = (torch.randn(b, s, h, d, generator=g) * 2).to(DEVICE, torch.float16).requires_grad_()
    w = (torch.rand(d, generator=g) + 0.5).to(DEVICE).requires_grad_()
    cos, sin = rotary(1, s, d, rope_dtype, seed=4)
    dy = torch.randn(b, s, h, d, generator=g).to(DEVICE)
    y = qk_norm_rope(x, w, cos, sin, EPS)
    xr = x.detach().clone().requires_grad_()
    ref, norm = hf_reference(xr, w.detach(), cos, sin, with_norm=True)
    assert y.dtype == ref.dtype == torch.float32
    assert torch.equal(y, ref)
    y.backward(dy)
    ref.backward(dy)
    assert x.grad.dtype == torch.float16 and w.grad.dtype == torch.float32
    assert (x.grad.float() - xr.grad.float()).abs().max() < 2e-3 * xr.grad.abs().max()
    assert (w.grad - norm.weight.grad).abs().max() < 1e-4 * norm.weight.grad.abs().max()


def test_fp32_forward_and_gradients_match_float64():
    b, s, h, d = 2, 6, 3, 32
    g = torch.Generator().manual_seed(7)
    x = torch.randn(b, s, h, d, generator=g).to(DEVICE).requires_grad_()
    w = (torch.rand(d, generator=g) + 0.5).to(DEVICE).requires_grad_()
    cos, sin = rotary(b, s, d, torch.float32, seed=3)
    dy = torch.randn(b, s, h, d, generator=g).to(DEVICE)
    y = qk_norm_rope(x, w, cos, sin, EPS)
    y.backward(dy)
    x64, w64 = (t.detach().double().requires_grad_() for t in (x, w))
    y64 = float64_reference(x64, w64, cos.double(), sin.double())
    y64.backward(dy.double())
    assert (y.double() - y64).abs().max() < 1e-5 * y64.abs().max()
    assert (x.grad.double() - x64.grad).abs().max() < 1e-5 * x64.grad.abs().max()
    assert (w.grad.double() - w64.grad).abs().max() < 1e-5 * w64.grad.abs().max()


def test_dw_is_reproducible_and_dy_only_read():
    b, s, h, d = 1, 9, 4, 16
    x = torch.randn(b, s, h, d, device=DEVICE).requires_grad_()
    w = (torch.rand(d, device=DEVICE) + 0.5).requires_grad_()
    cos, sin = rotary(b, s, d, torch.float32, seed=1)
    dy = torch.randn(b, s, h, d, device=DEVICE)
    before = dy.clone()
    grads = []
    for _ in range(2):
        x.grad = w.grad = None
        qk_norm_rope(x, w, cos, sin, EPS).backward(dy)
        grads.append(w.grad.clone())
    assert torch.equal(*grads) and torch.equal(dy, before)


def test_strided_x_and_dy_and_shared_cos_read_right():
    """x a slice of a wider projection, dy the transposed view SDPA hands back, cos shared by the batch."""
    b, s, h, d = 2, 5, 3, 16
    g = torch.Generator().manual_seed(11)
    wide = torch.randn(b, s, h + 2, d, generator=g).to(DEVICE)
    x = wide[:, :, 1 : h + 1].requires_grad_()  # heads strided, not contiguous
    w = (torch.rand(d, generator=g) + 0.5).to(DEVICE).requires_grad_()
    cos, sin = rotary(1, s, d, torch.float32, seed=5)  # (1, s, d): one row of positions for the batch
    dy = torch.randn(b, h, s, d, generator=g).to(DEVICE).transpose(1, 2)
    assert not x.is_contiguous() and not dy.is_contiguous()
    y = qk_norm_rope(x, w, cos, sin, EPS)
    y.backward(dy)
    xc = x.detach().contiguous().requires_grad_()
    wc = w.detach().clone().requires_grad_()
    yc = qk_norm_rope(xc, wc, cos.expand(b, s, d).contiguous(), sin.expand(b, s, d).contiguous(), EPS)
    yc.backward(dy.contiguous())
    assert torch.equal(y, yc) and torch.equal(x.grad, xc.grad)
    assert torch.allclose(w.grad, wc.grad, rtol=1e-6, atol=1e-6)


def test_bad_inputs_name_the_tensor_shape_and_dtype():
    x = torch.randn(1, 2, 3, 12, device=DEVICE)  # head_dim 12: not a power of 2
    w = torch.ones(12, device=DEVICE)
    cos, sin = rotary(1, 2, 12, torch.float32, seed=0)
    with pytest.raises(ValueError, match=r"head_dim must be a power of 2, got x \(1, 2, 3, 12\)"):
        qk_norm_rope(x, w, cos, sin)
    x, w = torch.randn(1, 2, 3, 16, device=DEVICE), torch.ones(16, device=DEVICE)
    cos, sin = rotary(1, 3, 16, torch.float32, seed=0)  # seq 3 against x's 2
    with pytest.raises(
        ValueError, match=r"cos must be \(1, 2, 16\) float16/bfloat16/float32, got \(1, 3, 16\)"
    ):
        qk_norm_rope(x, w, cos, sin)
    with pytest.raises(
        ValueError, match=r"weight must be \(16,\) float16/bfloat16/float32, got \(16,\) torch.int64"
    ):
        qk_norm_rope(x, w.long(), *rotary(1, 2, 16, torch.float32, seed=0))
    cos, sin = rotary(1, 2, 16, torch.float32, seed=0)
    with pytest.raises(ValueError, match=r"sin \(1, 2, 16\) torch.float16 must have one shape and dtype"):
        qk_norm_rope(x, w, cos, sin.half())
    x2 = torch.randn(2, 2, 3, 16, device=DEVICE)  # batch 2: cos shared (1, ...), sin per sequence
    cos1, _ = rotary(1, 2, 16, torch.float32, seed=0)
    _, sin2 = rotary(2, 2, 16, torch.float32, seed=0)
    with pytest.raises(ValueError, match=r"and sin \(2, 2, 16\) torch.float32 must have one shape"):
        qk_norm_rope(x2, w, cos1, sin2)


def test_patched_qwen3_trains_like_hf():
    import copy

    from qwen3_fusion.patching import patch_qwen3_qk_norm_rope
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    config = Qwen3Config(vocab_size=96, hidden_size=64, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=16)  # fmt: skip
    ref = Qwen3ForCausalLM(config).to(DEVICE)
    model = copy.deepcopy(ref)
    assert patch_qwen3_qk_norm_rope(model) == 2
    ids = torch.randint(0, 96, (2, 12), device=DEVICE)
    losses = [m(input_ids=ids, labels=ids, use_cache=False).loss for m in (ref, model)]
    for loss in losses:
        loss.backward()
    assert abs(losses[0].item() - losses[1].item()) < 1e-6
    grads = [
        (p.grad - q.grad).abs().max().item()
        for p, q in zip(model.parameters(), ref.parameters(), strict=True)
    ]
    assert max(grads) < 1e-6 and model.model.layers[0].self_attn.q_norm.weight.grad.abs().sum() > 0
    model(input_ids=ids)  # training: the cache HF builds by default is left alone
    with pytest.raises(ValueError, match="KV cache is not supported"):
        model.eval()(input_ids=ids, use_cache=True)


def test_custom_ops_pass_opcheck_and_compile_whole():
    from qwen3_fusion.qk_norm_rope import qk_norm_rope_bwd_op, qk_norm_rope_fwd_op

    b, s, h, d = 1, 8, 2, 16
    x = torch.randn(b, s, h, d, device=DEVICE, requires_grad=True)
    w = (torch.rand(d, device=DEVICE) + 0.5).requires_grad_()
    cos, sin = rotary(1, s, d, torch.float32, seed=2)  # one shared batch row, as HF passes it
    checks = [torch.library.opcheck(qk_norm_rope_fwd_op, (x, w, cos, sin, EPS))]
    y, rstd = qk_norm_rope_fwd_op(x, w, cos, sin, EPS)
    dy = torch.randn_like(y)
    checks.append(
        torch.library.opcheck(
            qk_norm_rope_bwd_op, (dy, x.detach(), w.detach(), cos, sin, rstd.detach())
        )
    )
    assert {v for c in checks for v in c.values()} == {"SUCCESS"}
    torch._dynamo.reset()
    compiled = torch.compile(
        lambda a, c: qk_norm_rope(a, c, cos, sin, EPS), backend="aot_eager", fullgraph=True
    )
    xc = x.detach().clone().requires_grad_()
    compiled(xc, w).backward(dy)
    qk_norm_rope(x, w, cos, sin, EPS).backward(dy)
    assert torch.equal(xc.grad, x.grad)


@pytest.mark.skipif(DEVICE == "cpu", reason="the cached launch exists only on a GPU")
def test_cached_launch_matches_triton_launch(monkeypatch):
    """Both kernels through the cached launcher: same bits as Triton's own launch, the rounding switch
    (weight in x's dtype or fp32) and the FMA option each picking its own compiled kernel."""
    import qwen3_fusion.launcher as launcher

    b, s, h, d = 2, 33, 3, 64
    g = torch.Generator().manual_seed(5)
    x = (torch.randn(b, s, h, d, generator=g) * 2).to(DEVICE, torch.bfloat16)
    cos, sin = rotary(1, s, d, torch.bfloat16, seed=6)
    dy = torch.randn(b, h, s, d, generator=g).to(DEVICE, torch.bfloat16).transpose(1, 2)
    weights = [
        (torch.rand(d, generator=g) + 0.5).to(DEVICE, dt) for dt in (torch.bfloat16, torch.float32)
    ]
    results = {}
    for fast in (False, True, True):  # Triton's path; then a first and a cached call
        monkeypatch.setattr(launcher, "_FAST", fast)
        for i, w in enumerate(weights):
            xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
            y = qk_norm_rope(xg, wg, cos, sin, EPS)
            y.backward(dy)
            got = (y, xg.grad, wg.grad)
            if i in results:
                assert all(torch.equal(p, q) for p, q in zip(got, results[i], strict=True))
            results[i] = got
    assert torch.equal(results[0][0], hf_reference(x, weights[0], cos, sin))
    assert torch.equal(results[1][0], hf_reference(x, weights[1], cos, sin))
    assert launcher._compiled, "no kernel was cached"


def test_patched_forward_imports_nothing():
    """Dynamo in torch 2.11 breaks the graph at an import of transformers' lazy modules: an import in
    the patched forward split the compiled 0.6B step into 8 graphs a forward (H100, 2026-12-06)."""
    import dis

    from qwen3_fusion import patching

    code = patching._fused_attention_forward.__code__
    codes = [code] + [c for c in code.co_consts if hasattr(c, "co_code")]
    assert not [i for c in codes for i in dis.get_instructions(c) if i.opname.startswith("IMPORT")]
