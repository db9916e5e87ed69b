# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""q_norm / k_norm + RoPE in one Triton kernel each way: the fusion no library offers (篇 1 §五's rows 3-4).

Qwen3Attention normalizes each head of q and k (RMSNorm over head_dim, weight (head_dim,)) and then
rotates it: y = x_n * cos + rotate_half(x_n) * sin. Eager runs 13 kernels per tensor; here one kernel
reads x once and writes y once, rounding where HF rounds (x_hat, the weight product, each RoPE product
and the sum, all in the input dtype), and a second kernel computes dx and the per-program dW partials.
Not yet timed on a GPU: `qk_norm_rope` is groundwork for the next benchmark.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§七); every block below is marked with its chunk.
"""

__all__ = [
    "BLOCK_M",
    "qk_norm_rope",
    "qk_norm_rope_bwd_op",
    "qk_norm_rope_fwd_op",
]


# %% src_literate/post2_triton_rmsnorm.pmd::qk_norm_rope
import torch
import triton
import triton.language as tl


@triton.jit
def _qk_norm_rope_fwd_kernel(
    x_ptr,  # (rows, D) one head per row: rows = tokens * heads, contiguous
    w_ptr,  # (D,) the norm's weight, dtype of x
    cos_ptr,  # (tokens, D) dtype of x
    sin_ptr,
    y_ptr,  # (rows, D) output, dtype of x
    rstd_ptr,  # (rows,) fp32, saved for the backward
    n_rows,
    heads,
    eps,
    HALF: tl.constexpr,  # D // 2, a power of 2
    BLOCK_M: tl.constexpr,  # rows per program
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, HALF)
    row_mask = rows < n_rows
    mask = row_mask[:, None]
    r64 = rows.to(tl.int64)[:, None]
    t64 = (rows // heads).to(tl.int64)[:, None]  # the token whose cos, sin this head uses
    dt = x_ptr.dtype.element_ty
    base, tb = r64 * (2 * HALF), t64 * (2 * HALF)
    x1 = tl.load(x_ptr + base + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + HALF + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt((tl.sum(x1 * x1, axis=1) + tl.sum(x2 * x2, axis=1)) / (2 * HALF) + eps)
    w1 = tl.load(w_ptr + cols).to(tl.float32)
    w2 = tl.load(w_ptr + HALF + cols).to(tl.float32)
    # Qwen3RMSNorm: x_hat rounded to the input dtype, then the weight product rounded again
    n1 = (w1[None, :] * (x1 * rstd[:, None]).to(dt).to(tl.float32)).to(dt).to(tl.float32)
    n2 = (w2[None, :] * (x2 * rstd[:, None]).to(dt).to(tl.float32)).to(dt).to(tl.float32)
    c1 = tl.load(cos_ptr + tb + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    c2 = tl.load(cos_ptr + tb + HALF + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    s1 = tl.load(sin_ptr + tb + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    s2 = tl.load(sin_ptr + tb + HALF + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    # apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, each product and the sum rounded
    y1 = (n1 * c1).to(dt).to(tl.float32) + (-n2 * s1).to(dt).to(tl.float32)
    y2 = (n2 * c2).to(dt).to(tl.float32) + (n1 * s2).to(dt).to(tl.float32)
    tl.store(y_ptr + base + cols[None, :], y1.to(dt), mask=mask)
    tl.store(y_ptr + base + HALF + cols[None, :], y2.to(dt), mask=mask)
    tl.store(rstd_ptr + rows, rstd, mask=row_mask)


@triton.jit
def _qk_norm_rope_bwd_kernel(
    dy_ptr,  # (rows, D) gradient of y, contiguous
    x_ptr,
    w_ptr,
    cos_ptr,
    sin_ptr,
    rstd_ptr,
    dx_ptr,  # (rows, D) dtype of x
    dw_partial_ptr,  # (programs, D) fp32: this program's rows' share of dW
    n_rows,
    heads,
    HALF: tl.constexpr,
    BLOCK_M: tl.constexpr,
):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, HALF)
    mask = (rows < n_rows)[:, None]
    r64 = rows.to(tl.int64)[:, None]
    t64 = (rows // heads).to(tl.int64)[:, None]
    dt = x_ptr.dtype.element_ty
    base = r64 * (2 * HALF)
    g1 = tl.load(dy_ptr + base + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    g2 = tl.load(dy_ptr + base + HALF + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    tb = t64 * (2 * HALF)
    c1 = tl.load(cos_ptr + tb + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    c2 = tl.load(cos_ptr + tb + HALF + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    s1 = tl.load(sin_ptr + tb + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    s2 = tl.load(sin_ptr + tb + HALF + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    # the rotation's transpose: y1 = n1 c1 - n2 s1, y2 = n2 c2 + n1 s2
    dn1 = g1 * c1 + g2 * s2
    dn2 = g2 * c2 - g1 * s1
    x1 = tl.load(x_ptr + base + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + HALF + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + rows, mask=rows < n_rows, other=0.0)[:, None]
    w1 = tl.load(w_ptr + cols).to(tl.float32)
    w2 = tl.load(w_ptr + HALF + cols).to(tl.float32)
    h1, h2 = x1 * rstd, x2 * rstd
    a1, a2 = dn1 * w1[None, :], dn2 * w2[None, :]
    dot = (tl.sum(a1 * h1, axis=1) + tl.sum(a2 * h2, axis=1))[:, None] / (2 * HALF)
    tl.store(dx_ptr + base + cols[None, :], ((a1 - h1 * dot) * rstd).to(dt), mask=mask)
    tl.store(dx_ptr + base + HALF + cols[None, :], ((a2 - h2 * dot) * rstd).to(dt), mask=mask)
    # dW sees x_hat rounded to the input dtype, as HF's autograd does
    p1 = tl.sum(dn1 * h1.to(dt).to(tl.float32), axis=0)
    p2 = tl.sum(dn2 * h2.to(dt).to(tl.float32), axis=0)
    tl.store(dw_partial_ptr + pid * (2 * HALF) + cols, p1)
    tl.store(dw_partial_ptr + pid * (2 * HALF) + HALF + cols, p2)


def _check(x: torch.Tensor, weight: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> None:
    """One clear error naming the tensor, its shape and dtype."""
    if x.dim() != 4:
        raise ValueError(
            f"qk_norm_rope: x must be (batch, seq, heads, head_dim), got {tuple(x.shape)} {x.dtype}"
        )
    d = x.shape[-1]
    if d < 2 or d & (d - 1):
        raise ValueError(f"qk_norm_rope: head_dim must be a power of 2, got x {tuple(x.shape)}")
    if weight.shape != (d,) or weight.dtype != x.dtype:
        raise ValueError(
            f"qk_norm_rope: weight must be ({d},) {x.dtype}, got {tuple(weight.shape)} {weight.dtype}"
        )
    want = (x.shape[0], x.shape[1], d)
    shared = (1, x.shape[1], d)  # one batch row of positions, broadcast as HF does
    for name, t in (("cos", cos), ("sin", sin)):
        if tuple(t.shape) not in (want, shared) or t.dtype != x.dtype:
            raise ValueError(
                f"qk_norm_rope: {name} must be {want} {x.dtype}, got {tuple(t.shape)} {t.dtype}"
            )


BLOCK_M = 16  # heads per program


def _rows(t: torch.Tensor, b: int, s: int, d: int) -> torch.Tensor:
    """(b or 1, s, [h,] d) -> contiguous (rows, d); cos and sin with one shared batch row are expanded."""
    return (t.expand(b, s, d) if t.dim() == 3 else t).contiguous().view(-1, d)


@torch.library.custom_op("qwen3_fusion::qk_norm_rope_fwd", mutates_args=())
def qk_norm_rope_fwd_op(
    x: torch.Tensor, weight: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Forward as one op torch.compile sees only through its fake: -> y (like x), rstd (rows,) fp32."""
    _check(x, weight, cos, sin)
    b, s, h, d = x.shape
    x2 = _rows(x, b, s, d)
    y = torch.empty_like(x2)
    rstd = torch.empty(x2.shape[0], dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(x2.shape[0], BLOCK_M),)
    _qk_norm_rope_fwd_kernel[grid](x2, weight.contiguous(), _rows(cos, b, s, d), _rows(sin, b, s, d), y, rstd,
                                   x2.shape[0], h, eps, HALF=d // 2, BLOCK_M=BLOCK_M)  # fmt: skip
    return y.view(x.shape), rstd


@qk_norm_rope_fwd_op.register_fake
def _(x, weight, cos, sin, eps):
    _check(x, weight, cos, sin)
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    return y, x.new_empty(x.numel() // x.shape[-1], dtype=torch.float32)


@torch.library.custom_op("qwen3_fusion::qk_norm_rope_bwd", mutates_args=())
def qk_norm_rope_bwd_op(
    dy: torch.Tensor,
    x: torch.Tensor,
    weight: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    rstd: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Backward as one op: -> dx (like x), dw (like weight); dW summed in a fixed order."""
    b, s, h, d = x.shape
    x2 = _rows(x, b, s, d)
    dx = torch.empty_like(x2)
    programs = triton.cdiv(x2.shape[0], BLOCK_M)
    partial = torch.empty(programs, d, dtype=torch.float32, device=x.device)
    _qk_norm_rope_bwd_kernel[(programs,)](_rows(dy, b, s, d), x2, weight.contiguous(), _rows(cos, b, s, d),
                                          _rows(sin, b, s, d), rstd, dx, partial, x2.shape[0], h,
                                          HALF=d // 2, BLOCK_M=BLOCK_M)  # fmt: skip
    return dx.view(x.shape), partial.sum(0).to(weight.dtype)


@qk_norm_rope_bwd_op.register_fake
def _(dy, x, weight, cos, sin, rstd):
    return torch.empty_like(x, memory_format=torch.contiguous_format), torch.empty_like(weight)


def _save(ctx, inputs, output):
    x, weight, cos, sin, _eps = inputs
    ctx.mark_non_differentiable(output[1])  # rstd: saved for the backward, no gradient of its own
    ctx.save_for_backward(x, weight, cos, sin, output[1])


def _grads(ctx, dy, _drstd):  # cos, sin (position embeddings) and eps get no gradient
    return *qk_norm_rope_bwd_op(dy, *ctx.saved_tensors), None, None, None


qk_norm_rope_fwd_op.register_autograd(_grads, setup_context=_save)


def qk_norm_rope(x, weight, cos, sin, eps: float = 1e-6):
    """Qwen3's q_norm (or k_norm) then apply_rotary_pos_emb for one tensor, fused: (b, s, h, D) -> same.

    The caller transposes to (b, h, s, D) afterwards, as Qwen3Attention does; cos and sin are the
    rotary embedding's (b or 1, s, D) outputs, which need no gradient. A pair of custom ops, so
    torch.compile keeps it whole instead of breaking the graph.
    """
    return qk_norm_rope_fwd_op(x, weight, cos, sin, eps)[0]
