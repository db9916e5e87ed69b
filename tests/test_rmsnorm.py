"""Tests of qwen3_fusion.rmsnorm: the Triton kernels against a float64 Qwen3RMSNorm reference.

On a CPU machine the kernels run in Triton's interpreter (tests/conftest.py sets TRITON_INTERPRET),
so shapes stay small. Run: pytest tests/test_rmsnorm.py
"""

import re

import pytest
import qwen3_fusion.rmsnorm as rmsnorm_module
import torch
from qwen3_fusion.rmsnorm import (
    MAX_HIDDEN,
    RMSNormFunction,
    TritonRMSNorm,
    rms_norm,
    rms_norm_backward,
    rms_norm_backward_torch,
    rms_norm_forward,
    tile_config,
)
from torch.utils._python_dispatch import TorchDispatchMode
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

EPS = 1e-6
# the kernels need CUDA tensors on a GPU machine; elsewhere conftest turns the interpreter on
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
DTYPES = [torch.float32, torch.bfloat16, torch.float16]
# fp32 arithmetic inside the kernels (sums, rsqrt), relative to an output's scale
FP32_SLACK = 1e-5


def make_inputs(shape, dtype, w_dtype=None, seed=0):
    """Fresh random non-zero x, weight and dy (weights around 1, as trained norms are)."""
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(shape, generator=g) * 2 + 0.3).to(DEVICE, dtype)
    w = (1 + 0.5 * torch.randn(shape[-1], generator=g)).to(DEVICE, w_dtype or dtype)
    dy = torch.randn(shape, generator=g).to(DEVICE, torch.promote_types(dtype, w.dtype))
    return x, w, dy


def reference(x, w, dy, eps=EPS):
    """Qwen3RMSNorm and its gradients in float64 -> {name: (value, scale)}.

    x_hat is rounded to x's dtype before the weight multiply, as Hugging Face does. `scale`
    bounds what one rounding can move: |y|; the magnitudes that enter dx; sum |dy * x_hat| for dw.
    """
    x64, w64, dy64 = x.double(), w.double(), dy.double()
    rstd = torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps)
    x_hat = x64 * rstd
    x_hat_r = x_hat.to(x.dtype).double()
    y = w64 * x_hat_r
    g = dy64 * w64
    dx = rstd * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    dx_scale = rstd * (g.abs() + x_hat.abs() * (g * x_hat).abs().mean(-1, keepdim=True))
    terms = (dy64 * x_hat_r).reshape(-1, x.shape[-1])
    r = rstd.squeeze(-1)
    return {
        "y": (y, y.abs()),
        "rstd": (r, r),
        "dx": (dx, dx_scale),
        "dw": (terms.sum(0), terms.abs().sum(0)),
    }


def assert_close(name, got, ref, scale, roundings):
    """|got - ref| <= (sum of eps(d) for d in roundings + fp32 slack) * scale + subnormal floor.

    Each rounding to a low-precision dtype may cost one ulp (eps(d) * |value|): the kernel
    rounds x_hat and the output as Hugging Face does, and the interpreter truncates where a GPU
    rounds to nearest.
    """
    rel = sum(torch.finfo(d).eps for d in roundings) + FP32_SLACK
    floor = torch.finfo(got.dtype).tiny * torch.finfo(got.dtype).eps
    err = (got.double() - ref).abs()
    bound = rel * scale + floor
    worst = (err / bound).max().item() if err.numel() else 0.0
    assert torch.isfinite(got).all(), f"{name}: non-finite values (an element not written?)"
    assert worst <= 1.0, f"{name}: error reaches {worst:.2f} x the allowed bound"


def run_kernels(x, w, dy, programs):
    """Forward and backward through the launchers, into NaN-poisoned buffers."""
    out_dtype = torch.promote_types(x.dtype, w.dtype)
    nan = float("nan")
    y = torch.full(x.shape, nan, dtype=out_dtype, device=DEVICE)
    rstd = torch.full(x.shape[:-1], nan, device=DEVICE)
    dx = torch.full(x.shape, nan, dtype=x.dtype, device=DEVICE)
    partial = torch.full((programs, x.shape[-1]), nan, device=DEVICE)
    rms_norm_forward(x, w, EPS, out=y, rstd=rstd)
    rms_norm_backward(dy, x, w, rstd, dx=dx, dw_partial=partial)
    return {"y": y, "rstd": rstd, "dx": dx, "dw": rms_norm_backward(dy, x, w, rstd)[1]}, partial


def check_against_reference(x, w, dy, got):
    ref = reference(x, w, dy)
    roundings = {
        "y": [x.dtype, got["y"].dtype],
        "rstd": [],
        "dx": [x.dtype],
        "dw": [x.dtype, w.dtype],
    }
    for name, (value, scale) in ref.items():
        assert_close(name, got[name], value.reshape(got[name].shape), scale, roundings[name])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "shape, programs",
    [((1, 1), 3), ((3, 5), 2), ((37, 128), 3), ((4, 300), 4), ((2, 3, 96), 5), ((2, 4096), 1)],
)
def test_kernels_match_reference(dtype, shape, programs):
    x, w, dy = make_inputs(shape, dtype)
    dy_before = dy.clone()
    got, partial = run_kernels(x, w, dy, programs)
    check_against_reference(x, w, dy, got)
    assert torch.isfinite(partial).all(), "a program left its dW partial row unwritten"
    assert torch.equal(dy, dy_before), "the backward modified dy"


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_widest_row(dtype):
    x, w, dy = make_inputs((2, MAX_HIDDEN), dtype)
    got, _ = run_kernels(x, w, dy, programs=2)
    check_against_reference(x, w, dy, got)


def test_fp16_rounds_where_hf_rounds():
    """x_hat is rounded to the input dtype before the weight multiply, as in Qwen3RMSNorm.

    fp16 casts round to nearest in the interpreter too, so the outputs agree bitwise; rounding
    once instead (as F.rms_norm does) leaves about a quarter of the elements 1 ulp away.
    """
    x, w, _ = make_inputs((64, 256), torch.float16)
    hf = Qwen3RMSNorm(256, eps=EPS).to(DEVICE, torch.float16)
    with torch.no_grad():
        hf.weight.copy_(w)
    y, _ = rms_norm_forward(x, w, EPS)
    assert (y == hf(x)).float().mean().item() >= 0.99


@pytest.mark.parametrize(
    "x_dtype, w_dtype",
    [
        (torch.bfloat16, torch.float32),
        (torch.float32, torch.bfloat16),
        (torch.float16, torch.bfloat16),
    ],
    ids=str,
)
def test_mixed_dtypes_promote_like_hf(x_dtype, w_dtype):
    x, w, dy = make_inputs((6, 40), x_dtype, w_dtype)
    hf = Qwen3RMSNorm(40, eps=EPS).to(DEVICE, w_dtype)
    got, _ = run_kernels(x, w, dy, programs=2)
    assert got["y"].dtype == hf(x).dtype == torch.promote_types(x_dtype, w_dtype)
    assert got["dx"].dtype == x_dtype and got["dw"].dtype == w_dtype
    check_against_reference(x, w, dy, got)


@pytest.mark.parametrize("backward", ["triton", "torch"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_autograd_matches_reference(dtype, backward):
    x, w, dy = make_inputs((2, 3, 72), dtype)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    y = rms_norm(xg, wg, EPS, backward=backward)
    y.backward(dy)
    rstd = torch.rsqrt(x.float().pow(2).mean(-1) + EPS)
    got = {"y": y.detach(), "rstd": rstd, "dx": xg.grad, "dw": wg.grad}
    check_against_reference(x, w, dy, got)


def test_function_apply_equals_custom_op():
    x, w, dy = make_inputs((5, 48), torch.bfloat16)
    grads = []
    for call in (
        lambda a, b: rms_norm(a, b, EPS),
        lambda a, b: RMSNormFunction.apply(a, b, EPS, True)[0],
    ):
        xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
        y = call(xg, wg)
        y.backward(dy)
        grads.append((y.detach(), xg.grad, wg.grad))
    for a, b in zip(*grads, strict=True):
        assert torch.equal(a, b)


@pytest.mark.parametrize("shape", [(0, 64), (2, 0, 64)])
def test_zero_rows(shape):
    x, w, _ = make_inputs(shape, torch.bfloat16)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    y = rms_norm(xg, wg, EPS)
    y.sum().backward()
    assert y.shape == shape and xg.grad.shape == shape
    assert torch.equal(wg.grad, torch.zeros_like(w))


def test_one_dimensional_input():
    x, w, dy = make_inputs((50,), torch.float32)
    got, _ = run_kernels(x, w, dy, programs=2)
    assert got["rstd"].shape == ()
    check_against_reference(x, w, dy, got)


def noncontiguous_cases():
    """(x, dy) bf16 pairs with layouts the launchers must handle; values fresh and non-zero."""
    g = torch.Generator().manual_seed(1)
    r = lambda *s: (torch.randn(*s, generator=g) + 0.1).to(DEVICE, torch.bfloat16)
    return {
        # q_norm: dy arrives through .transpose(1, 2) of a (B, H, T, D) gradient
        "q_norm_grad": (r(2, 5, 3, 16), r(2, 3, 5, 16).transpose(1, 2)),
        "row_stride": (r(6, 64)[:, :40], r(6, 80)[:, 20:60]),
        "column_stride": (r(4, 3, 80)[..., ::2], r(4, 3, 40)),
        "transposed_rows": (r(5, 7, 24).transpose(0, 1), r(5, 7, 24).transpose(0, 1)),
        "expanded_dy": (r(3, 4, 32), r(1, 1, 32).expand(3, 4, 32)),
        # a 4-D q_norm input that is itself a transpose, and its gradient in the other layout
        "q_norm_4d_x": (r(2, 3, 5, 16).transpose(1, 2), r(2, 5, 3, 16)),
        "transposed_dy_2d": (r(24, 16), r(16, 24).t()),
    }


@pytest.mark.parametrize("case", list(noncontiguous_cases()))
def test_non_contiguous_inputs_and_grads(case):
    x, dy = noncontiguous_cases()[case]
    assert not (x.is_contiguous() and dy.is_contiguous())
    w = make_inputs(x.shape, torch.bfloat16)[1]
    dy_before = dy.clone()
    xg, wg = x.detach().requires_grad_(), w.clone().requires_grad_()
    y = rms_norm(xg, wg, EPS)
    y.backward(dy)
    rstd = torch.rsqrt(x.float().pow(2).mean(-1) + EPS)
    check_against_reference(x, w, dy, {"y": y, "rstd": rstd, "dx": xg.grad, "dw": wg.grad})
    assert torch.equal(dy, dy_before)


def test_dw_is_bitwise_deterministic():
    x, w, dy = make_inputs((64, 96), torch.bfloat16)
    _, rstd = rms_norm_forward(x, w, EPS)
    first = rms_norm_backward(dy, x, w, rstd)
    for _ in range(2):
        again = rms_norm_backward(dy, x, w, rstd)
        assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("shape", [(37, 128), (5, 300), (2, 3, 96)])
def test_atomic_dw_matches_reference(dtype, shape):
    x, w, dy = make_inputs(shape, dtype, seed=3)
    _, rstd = rms_norm_forward(x, w, EPS)
    dx, dw = rms_norm_backward(dy, x, w, rstd, atomic_dw=True)
    two_stage = rms_norm_backward(dy, x, w, rstd)
    assert dw.dtype == w.dtype and dw.shape == w.shape
    assert torch.equal(dx, two_stage[0]), "only the dW step may differ"
    ref = reference(x, w, dy)
    assert_close("dw", dw, ref["dw"][0], ref["dw"][1], [x.dtype, w.dtype])
    with pytest.raises(ValueError, match="atomic_dw=True takes no dw_partial"):
        rms_norm_backward(
            dy, x, w, rstd, atomic_dw=True, dw_partial=torch.zeros(2, shape[-1], device=DEVICE)
        )
    assert rms_norm_backward(dy, x, w, rstd, atomic_dw=True, compute_dw=False)[1] is None


def test_torch_formula_matches_triton_backward():
    x, w, dy = make_inputs((9, 200), torch.float32)
    _, rstd = rms_norm_forward(x, w, EPS)
    triton_grads = rms_norm_backward(dy, x, w, rstd)
    torch_grads = rms_norm_backward_torch(dy, x, w, rstd)
    for a, b in zip(triton_grads, torch_grads, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def bad_calls():
    """(call, text its ValueError must contain)."""
    x, w, dy = make_inputs((4, 8), torch.float32)
    _, rstd = rms_norm_forward(x, w, EPS)
    wide = torch.ones(1, MAX_HIDDEN + 1, device=DEVICE)
    return {
        "int_x": (lambda: rms_norm(x.long(), w), "x of shape (4, 8) and dtype torch.int64"),
        "float64_x": (lambda: rms_norm(x.double(), w), "dtype torch.float64"),
        "too_wide": (
            lambda: rms_norm(wide, torch.ones(MAX_HIDDEN + 1, device=DEVICE)),
            f"x of shape (1, {MAX_HIDDEN + 1}) and dtype torch.float32",
        ),
        "scalar_x": (lambda: rms_norm(x[0, 0], w), "x of shape () and dtype"),
        "weight_shape": (lambda: rms_norm(x, w[:5]), "weight of shape (5,) and dtype"),
        "weight_int": (lambda: rms_norm(x, w.int()), "weight of shape (8,) and dtype torch.int32"),
        "weight_device": (
            lambda: rms_norm(x, w.to("meta")),
            "weight of shape (8,) and dtype torch.float32 on meta",
        ),
        "dy_shape": (
            lambda: rms_norm_backward(dy[:2], x, w, rstd),
            "dy of shape (2, 8) and dtype torch.float32",
        ),
        "out_dtype": (
            lambda: rms_norm_forward(x, w, out=torch.empty_like(x, dtype=torch.bfloat16)),
            "out of shape (4, 8) and dtype torch.bfloat16",
        ),
        "backward_name": (lambda: rms_norm(x, w, backward="cuda"), "got 'cuda'"),
    }


@pytest.mark.parametrize("case", list(bad_calls()))
def test_bad_input_raises_clear_error(case):
    call, text = bad_calls()[case]
    with pytest.raises(ValueError, match=re.escape(text)):
        call()


def test_module_is_a_drop_in_for_qwen3_rmsnorm():
    hf = Qwen3RMSNorm(64, eps=1e-5).to(DEVICE)
    with torch.no_grad():
        hf.weight.copy_(make_inputs((64,), torch.float32)[1])
    ours = TritonRMSNorm(64, eps=1e-5).to(DEVICE)
    assert list(ours.state_dict()) == list(hf.state_dict()) == ["weight"]
    ours.load_state_dict(hf.state_dict())
    hf2 = Qwen3RMSNorm(64).to(DEVICE)
    hf2.load_state_dict(ours.state_dict())
    assert torch.equal(hf2.weight, hf.weight)
    assert ours.variance_epsilon == hf.variance_epsilon
    assert repr(ours) == "TritonRMSNorm((64,), eps=1e-05, backward='triton')"
    x = make_inputs((3, 64), torch.float32)[0]
    torch.testing.assert_close(ours(x), hf(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_opcheck(dtype):
    x, w, dy = make_inputs((3, 5, 32), dtype)
    fwd = torch.ops.qwen3_fusion.rms_norm_fwd.default
    for triton_backward in (True, False):
        args = (x.requires_grad_(), w.requires_grad_(), EPS, triton_backward)
        torch.library.opcheck(fwd, args)
    _, rstd = rms_norm_forward(x.detach(), w.detach(), EPS)
    bwd = torch.ops.qwen3_fusion.rms_norm_bwd.default
    for compute_dw in (True, False):
        torch.library.opcheck(bwd, (dy, x.detach(), w.detach(), rstd, compute_dw))


def test_inductor_fullgraph_matches_eager():
    torch._dynamo.reset()
    norm = TritonRMSNorm(32).to(DEVICE)
    with torch.no_grad():
        norm.weight.copy_(make_inputs((32,), torch.float32)[1])
    x = make_inputs((3, 5, 32), torch.float32)[0]
    step = lambda t: (norm(t) * t).square().sum()
    results = []
    for fn in (step, torch.compile(step, fullgraph=True)):
        xg = x.clone().requires_grad_()
        norm.weight.grad = None
        loss = fn(xg)
        loss.backward()
        results.append((loss.detach(), xg.grad, norm.weight.grad))
    for eager, compiled in zip(*results, strict=True):
        torch.testing.assert_close(compiled, eager, rtol=1e-5, atol=1e-6)


class OpRecorder(TorchDispatchMode):
    """Records the name of every op dispatched while active."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("grad", [False, True])
def test_eager_path_skips_custom_op(grad):
    x, w, dy = make_inputs((4, 64), torch.bfloat16)
    xg, wg = x.clone().requires_grad_(grad), w.clone().requires_grad_(grad)
    with OpRecorder() as rec:
        y = rms_norm(xg, wg, EPS)
        if grad:
            y.backward(dy)
    assert not [n for n in rec.names if "qwen3_fusion" in n], rec.names
    assert y.requires_grad == grad


def test_plan_is_computed_once_per_shape():
    x, w, _ = make_inputs((3, 40), torch.float32)
    rms_norm_forward(x, w, EPS)
    before = rmsnorm_module._plan.cache_info()
    rms_norm_forward(x, w, EPS)
    after = rmsnorm_module._plan.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)


def test_frozen_weight_skips_dw():
    x, w, dy = make_inputs((6, 48), torch.bfloat16)
    xg = x.clone().requires_grad_()
    rms_norm(xg, w, EPS).backward(dy)  # w.requires_grad is False, as for a frozen norm
    _, rstd = rms_norm_forward(x, w, EPS)
    dx_full, dw_full = rms_norm_backward(dy, x, w, rstd)
    dx_only, dw_none = rms_norm_backward(dy, x, w, rstd, compute_dw=False)
    assert dw_none is None and dw_full is not None
    assert torch.equal(dx_only, dx_full) and torch.equal(xg.grad, dx_full)


def test_double_backward_raises():
    x, w, _ = make_inputs((3, 32), torch.float32)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    (gx,) = torch.autograd.grad(rms_norm(xg, wg, EPS).square().sum(), xg, create_graph=True)
    with pytest.raises(RuntimeError, match="differentiate twice"):
        gx.sum().backward()


@pytest.mark.parametrize("x_dtype, dy_dtype", [(torch.bfloat16, torch.float32),
                                                (torch.float32, torch.bfloat16)])  # fmt: skip
def test_dy_dtype_may_differ_from_x(x_dtype, dy_dtype):
    x, w, _ = make_inputs((5, 3, 80), x_dtype)
    dy = make_inputs((5, 3, 80), dy_dtype, seed=1)[2]
    _, rstd = rms_norm_forward(x, w, EPS)
    dx, dw = rms_norm_backward(dy, x, w, rstd)
    ref = reference(x, w, dy)
    assert_close("dx", dx, ref["dx"][0], ref["dx"][1], [x_dtype, dy_dtype])
    assert_close("dw", dw, ref["dw"][0], ref["dw"][1], [x_dtype, w.dtype])


def test_shared_memory_budget_comes_from_the_device():
    staged = lambda c: (c.num_stages - 1) * c.kwargs["BLOCK_M"]
    big, small = (tile_config(4096, torch.bfloat16, True, smem=kb * 1024) for kb in (227, 48))
    assert staged(small) < staged(big)
    wide_dy = tile_config(2048, torch.bfloat16, True, dy_dtype=torch.float32, smem=64 * 1024)
    same_dy = tile_config(2048, torch.bfloat16, True, smem=64 * 1024)
    assert staged(wide_dy) <= staged(same_dy)
    for c, itemsize in ((small, 4), (wide_dy, 6)):
        block_n = 4096 if c is small else 2048
        budget = rmsnorm_module.SMEM_FRACTION * (48 if c is small else 64) * 1024
        assert (c.num_stages - 1) * c.kwargs["BLOCK_M"] * block_n * itemsize <= budget


@pytest.mark.skipif(DEVICE == "cpu", reason="the device switch exists only for CUDA tensors")
def test_launch_switches_to_the_tensor_device(monkeypatch):
    x, w, _ = make_inputs((4, 64), torch.float32)
    # one GPU: pretend another device is current, and check the launch switches to x's device
    entered = []
    real = torch.cuda.device
    monkeypatch.setattr(torch.cuda, "current_device", lambda: x.device.index + 1)
    import qwen3_fusion.launcher as launcher

    monkeypatch.setattr(launcher, "_get_device", lambda: x.device.index + 1)
    monkeypatch.setattr(torch.cuda, "device", lambda i: entered.append(i) or real(i))
    y, _ = rms_norm_forward(x, w, EPS)
    assert entered == [x.device.index]
    ref = reference(x, w, torch.zeros_like(x))["y"]
    assert_close("y", y, ref[0], ref[1], [x.dtype])


@pytest.mark.skipif(DEVICE == "cpu", reason="the cached launch exists only on a GPU")
def test_cached_launch_matches_triton_launch(monkeypatch):
    """The cached launcher must pick the kernel Triton would: rows of 1, 16, 17, unaligned data."""
    import qwen3_fusion.launcher as launcher

    cases = []
    for rows, n, offset in ((1, 64, 0), (16, 128, 0), (17, 96, 0), (33, 128, 1), (16, 3000, 0)):
        x, w, dy = make_inputs((rows, n + offset), torch.bfloat16, seed=rows)
        cases.append((x[:, offset:], w[offset:], dy[:, offset:]))
    results = {}
    for fast in (False, True, True):  # Triton's path; then a first and a cached call
        monkeypatch.setattr(launcher, "_FAST", fast)
        for i, (x, w, dy) in enumerate(cases):
            y, rstd = rms_norm_forward(x, w, EPS)
            dx, dw = rms_norm_backward(dy, x, w, rstd)
            got = (y, rstd, dx, dw)
            if i in results:
                assert all(torch.equal(a, b) for a, b in zip(got, results[i], strict=True))
            results[i] = got
    assert launcher._compiled, "no kernel was cached"


def weight_layouts():
    """Weights the kernels must read by stride: columns of matrices (strides 2 and 3)."""
    g = torch.Generator().manual_seed(3)
    col = lambda k: (1 + 0.5 * torch.randn(64, k, generator=g)).to(DEVICE, torch.bfloat16)[:, k - 1]
    return {"stride_2": col(2), "stride_3": col(3)}


@pytest.mark.parametrize("layout", list(weight_layouts()))
def test_strided_weight(layout):
    w = weight_layouts()[layout]
    x, _, dy = make_inputs((6, 64), torch.bfloat16, seed=4)
    xg, wg = x.clone().requires_grad_(), w.detach().clone().requires_grad_()
    wv = w.detach().requires_grad_()  # the strided view itself is the leaf
    assert not wv.is_contiguous()
    y = rms_norm(xg, wv, EPS)
    y.backward(dy)
    rstd = torch.rsqrt(x.float().pow(2).mean(-1) + EPS)
    check_against_reference(x, w, dy, {"y": y, "rstd": rstd, "dx": xg.grad, "dw": wv.grad})
    assert wv.grad.shape == (64,) and wg.grad is None


def test_rstd_is_saved_not_differentiable():
    x, w, dy = make_inputs((4, 32), torch.float32)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    y, rstd = RMSNormFunction.apply(xg, wg, EPS, True)
    assert y.requires_grad and not rstd.requires_grad
    # a loss that also uses rstd backpropagates through y only (rstd is a constant to autograd)
    (y * dy).sum().add(rstd.sum()).backward()
    ref = reference(x, w, dy)
    assert_close("dx", xg.grad, ref["dx"][0], ref["dx"][1], [x.dtype])


def test_compiled_frozen_weight_matches_eager():
    torch._dynamo.reset()
    norm = TritonRMSNorm(32).to(DEVICE)
    norm.weight.requires_grad_(False)  # a frozen norm, as under LoRA
    x = make_inputs((3, 5, 32), torch.float32)[0]
    step = lambda t: (norm(t) * t).square().sum()
    grads = []
    for fn in (step, torch.compile(step, fullgraph=True)):
        xg = x.clone().requires_grad_()
        fn(xg).backward()
        grads.append(xg.grad)
    assert norm.weight.grad is None
    torch.testing.assert_close(grads[1], grads[0], rtol=1e-5, atol=1e-6)
