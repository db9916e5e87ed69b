# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""q_norm / k_norm + RoPE in one Triton kernel each way: the fusion no library offers (篇 1 §五's rows 3-4).

Qwen3Attention normalizes each head of q and k (RMSNorm over head_dim, weight (head_dim,)) and then
rotates it: y = x_n * cos + rotate_half(x_n) * sin. Eager runs 13 kernels per tensor; here one kernel
reads x once and writes y once, rounding where HF rounds and to the dtype PyTorch's type promotion gives
there (x_hat to x's dtype, the weight product to promote(weight, x), each RoPE product and the sum to
promote(that, cos): an fp32 weight under autocast makes the output fp32, as in HF), and a second kernel
computes dx and the per-program dW partials.
The forward is compiled with FMA contraction off: Triton contracts a rounded product and the add after
it into one fma, which rounds once where HF rounds twice. Both kernels launch through
qwen3_fusion.launcher, which skips Triton's per-call argument binding on repeat launches (a training
step calls these ops four times a layer; on an H100 host the forward op took 50 us a call against
60 us through Triton's own launch).

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

from qwen3_fusion.launcher import launch


# %% src_literate/post2_triton_rmsnorm.pmd::qk_norm_rope_fwd
@triton.jit
def _token_index(rows, seq, heads):
    """(batch, position, head) of each row, int64 columns: offsets are these times a tensor's strides."""
    t = rows // heads
    b, s, h = (t // seq).to(tl.int64), (t % seq).to(tl.int64), (rows % heads).to(tl.int64)
    return b[:, None], s[:, None], h[:, None]


@triton.jit
def _load_halves(ptr, off, cols, mask, HALF: tl.constexpr):
    """The two halves of each row at ptr + off (RoPE rotates one against the other), upcast to fp32."""
    lo = tl.load(ptr + off + cols, mask=mask, other=0.0).to(tl.float32)
    hi = tl.load(ptr + off + HALF + cols, mask=mask, other=0.0).to(tl.float32)
    return lo, hi


@triton.jit
def _qk_norm_rope_fwd_kernel(
    x_ptr,  # (b, s, h, D), head_dim contiguous; strides x_sb, x_ss, x_sh
    w_ptr,  # (D,) the norm's weight
    cos_ptr,  # (b or 1, s, D), strides cs_b (0 when shared across the batch), cs_s
    sin_ptr,
    y_ptr,  # (rows, D) contiguous output, rows = b * s * h, in the promoted dtype
    rstd_ptr,  # (rows,) fp32, saved for the backward
    x_sb,
    x_ss,
    x_sh,
    cs_b,
    cs_s,
    n_rows,
    seq,
    heads,
    eps,
    HALF: tl.constexpr,  # D // 2, a power of 2
    BLOCK_M: tl.constexpr,  # rows per program
    ROUND_NORM: tl.constexpr,  # the weight has x's dtype, so HF rounds the norm's output to it
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, HALF)[None, :]
    row_mask = rows < n_rows
    mask = row_mask[:, None]
    b, s, h = _token_index(rows, seq, heads)
    co = b * cs_b + s * cs_s
    dt = x_ptr.dtype.element_ty
    ot = y_ptr.dtype.element_ty  # the output's dtype
    x1, x2 = _load_halves(x_ptr, b * x_sb + s * x_ss + h * x_sh, cols, mask, HALF)
    rstd = tl.rsqrt((tl.sum(x1 * x1, axis=1) + tl.sum(x2 * x2, axis=1)) / (2 * HALF) + eps)
    w1 = tl.load(w_ptr + cols).to(tl.float32)
    w2 = tl.load(w_ptr + HALF + cols).to(tl.float32)
    # Qwen3RMSNorm: x_hat rounded to the input dtype, then the weight product rounded again, to
    # x's dtype; an fp32 weight (autocast) makes that product fp32, which needs no rounding
    n1 = w1 * (x1 * rstd[:, None]).to(dt).to(tl.float32)
    n2 = w2 * (x2 * rstd[:, None]).to(dt).to(tl.float32)
    if ROUND_NORM:
        n1, n2 = n1.to(dt).to(tl.float32), n2.to(dt).to(tl.float32)
    c1, c2 = _load_halves(cos_ptr, co, cols, mask, HALF)
    s1, s2 = _load_halves(sin_ptr, co, cols, mask, HALF)
    # apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, each product and the sum rounded
    y1 = (n1 * c1).to(ot).to(tl.float32) + (-n2 * s1).to(ot).to(tl.float32)
    y2 = (n2 * c2).to(ot).to(tl.float32) + (n1 * s2).to(ot).to(tl.float32)
    yo = rows.to(tl.int64)[:, None] * (2 * HALF)
    tl.store(y_ptr + yo + cols, y1.to(ot), mask=mask)
    tl.store(y_ptr + yo + HALF + cols, y2.to(ot), mask=mask)
    tl.store(rstd_ptr + rows, rstd, mask=row_mask)


# %% src_literate/post2_triton_rmsnorm.pmd::qk_norm_rope_bwd
@triton.jit
def _qk_norm_rope_bwd_kernel(
    dy_ptr,  # gradient of y, (b, s, h, D) with any strides dy_sb, dy_ss, dy_sh (head_dim contiguous)
    x_ptr,  # the forward's x, strides x_sb, x_ss, x_sh
    w_ptr,
    cos_ptr,
    sin_ptr,
    rstd_ptr,
    dx_ptr,  # (rows, D) contiguous, dtype of x
    dw_partial_ptr,  # (programs, D) fp32: this program's rows' share of dW
    dy_sb,
    dy_ss,
    dy_sh,
    x_sb,
    x_ss,
    x_sh,
    cs_b,
    cs_s,
    n_rows,
    seq,
    heads,
    HALF: tl.constexpr,
    BLOCK_M: tl.constexpr,
):
    # persistent: P programs stride over the row blocks and keep their dW share in registers
    pid, n_prog = tl.program_id(0), tl.num_programs(0)
    cols = tl.arange(0, HALF)[None, :]
    dt = x_ptr.dtype.element_ty
    w1 = tl.load(w_ptr + cols).to(tl.float32)
    w2 = tl.load(w_ptr + HALF + cols).to(tl.float32)
    p1 = tl.zeros([HALF], dtype=tl.float32)
    p2 = tl.zeros([HALF], dtype=tl.float32)
    for start in range(pid * BLOCK_M, n_rows, n_prog * BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        row_mask = rows < n_rows
        mask = row_mask[:, None]
        b, s, h = _token_index(rows, seq, heads)
        co = b * cs_b + s * cs_s
        g1, g2 = _load_halves(dy_ptr, b * dy_sb + s * dy_ss + h * dy_sh, cols, mask, HALF)
        c1, c2 = _load_halves(cos_ptr, co, cols, mask, HALF)
        s1, s2 = _load_halves(sin_ptr, co, cols, mask, HALF)
        # the rotation's transpose: y1 = n1 c1 - n2 s1, y2 = n2 c2 + n1 s2
        dn1 = g1 * c1 + g2 * s2
        dn2 = g2 * c2 - g1 * s1
        x1, x2 = _load_halves(x_ptr, b * x_sb + s * x_ss + h * x_sh, cols, mask, HALF)
        rstd = tl.load(rstd_ptr + rows, mask=row_mask, other=0.0)[:, None]
        h1, h2 = x1 * rstd, x2 * rstd
        a1, a2 = dn1 * w1, dn2 * w2
        dot = (tl.sum(a1 * h1, axis=1) + tl.sum(a2 * h2, axis=1))[:, None] / (2 * HALF)
        do = rows.to(tl.int64)[:, None] * (2 * HALF)
        tl.store(dx_ptr + do + cols, ((a1 - h1 * dot) * rstd).to(dt), mask=mask)
        tl.store(dx_ptr + do + HALF + cols, ((a2 - h2 * dot) * rstd).to(dt), mask=mask)
        # dW sees x_hat rounded to the input dtype, as HF's autograd does
        p1 += tl.sum(dn1 * h1.to(dt).to(tl.float32), axis=0)
        p2 += tl.sum(dn2 * h2.to(dt).to(tl.float32), axis=0)
    tl.store(dw_partial_ptr + pid * (2 * HALF) + tl.arange(0, HALF), p1)
    tl.store(dw_partial_ptr + pid * (2 * HALF) + HALF + tl.arange(0, HALF), p2)


# %% src_literate/post2_triton_rmsnorm.pmd::qk_norm_rope_ops
_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


def _check(x: torch.Tensor, weight: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> None:
    """One clear error naming the tensor, its shape and dtype."""
    if x.dim() != 4 or x.dtype not in _DTYPES:
        raise ValueError(
            "qk_norm_rope: x must be (batch, seq, heads, head_dim) float16/bfloat16/float32, "
            f"got {tuple(x.shape)} {x.dtype}"
        )
    d = x.shape[-1]
    if d < 2 or d & (d - 1):
        raise ValueError(f"qk_norm_rope: head_dim must be a power of 2, got x {tuple(x.shape)}")
    if weight.shape != (d,) or weight.dtype not in _DTYPES:
        raise ValueError(
            f"qk_norm_rope: weight must be ({d},) float16/bfloat16/float32, "
            f"got {tuple(weight.shape)} {weight.dtype}"
        )
    want = (x.shape[0], x.shape[1], d)
    shared = (1, x.shape[1], d)  # one batch row of positions, broadcast as HF does
    for name, t in (("cos", cos), ("sin", sin)):
        if tuple(t.shape) not in (want, shared) or t.dtype not in _DTYPES:
            raise ValueError(
                f"qk_norm_rope: {name} must be {want} float16/bfloat16/float32, "
                f"got {tuple(t.shape)} {t.dtype}"
            )
    if cos.shape != sin.shape or cos.dtype != sin.dtype:  # the kernels read both alike
        raise ValueError(
            f"qk_norm_rope: cos {tuple(cos.shape)} {cos.dtype} and sin {tuple(sin.shape)} "
            f"{sin.dtype} must have one shape and dtype"
        )


def _dtypes(x: torch.Tensor, weight: torch.Tensor, cos: torch.Tensor) -> tuple:
    """(norm dtype, output dtype) by PyTorch's promotion, as HF's `weight * x_hat` and `q * cos` give them."""
    norm = torch.promote_types(weight.dtype, x.dtype)
    return norm, torch.promote_types(norm, cos.dtype)


# from the H200 sweep at q of 4 x 2048 x 16 x 128 (post 2 7.4): forward 8 rows a program; backward
# 32 rows a step, 4 warps, 8 programs per SM (54 us against 69 us at 16 / 4 / 4)
BLOCK_M = 8
BWD_BLOCK_M, BWD_WARPS, BWD_PER_SM = 32, 4, 8


def _head_major(t: torch.Tensor) -> torch.Tensor:
    """t itself when head_dim is contiguous (the kernels take the other strides), else a contiguous copy."""
    return t if t.stride(-1) == 1 else t.contiguous()


def _cos_sin(cos: torch.Tensor, sin: torch.Tensor) -> tuple:
    """cos, sin with contiguous rows and their (batch, seq) strides; batch stride 0 when shared."""
    cos, sin = cos.contiguous(), sin.contiguous()
    return cos, sin, (0 if cos.shape[0] == 1 else cos.stride(0)), cos.stride(1)


def _programs(n_blocks: int, device: torch.device) -> int:
    if device.type != "cuda":
        return min(n_blocks, 4)  # the interpreter: a few programs, so the stride loop is exercised
    return min(
        n_blocks, BWD_PER_SM * torch.cuda.get_device_properties(device).multi_processor_count
    )


@torch.library.custom_op("qwen3_fusion::qk_norm_rope_fwd", mutates_args=())
def qk_norm_rope_fwd_op(
    x: torch.Tensor, weight: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Forward as one op torch.compile sees only through its fake: -> y (contiguous), rstd (rows,) fp32."""
    _check(x, weight, cos, sin)
    b, s, h, d = x.shape
    x = _head_major(x)
    cos, sin, cs_b, cs_s = _cos_sin(cos, sin)
    norm_dt, out_dt = _dtypes(x, weight, cos)
    y = torch.empty(x.shape, dtype=out_dt, device=x.device)
    rows = b * s * h
    rstd = torch.empty(rows, dtype=torch.float32, device=x.device)
    launch(
        _qk_norm_rope_fwd_kernel,
        (triton.cdiv(rows, BLOCK_M),),
        (x, weight.contiguous(), cos, sin, y, rstd, *x.stride()[:3], cs_b, cs_s, rows, s, h, eps),
        dict(HALF=d // 2, BLOCK_M=BLOCK_M, ROUND_NORM=norm_dt == x.dtype),
        4,
        options=dict(enable_fp_fusion=False),  # round each product, as HF does
    )
    return y, rstd


@qk_norm_rope_fwd_op.register_fake
def _(x, weight, cos, sin, eps):
    _check(x, weight, cos, sin)
    y = torch.empty_like(x, dtype=_dtypes(x, weight, cos)[1], memory_format=torch.contiguous_format)
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
    """Backward as one op: -> dx (contiguous), dw (like weight); dW summed in a fixed order."""
    b, s, h, d = x.shape
    dy, x = _head_major(dy), _head_major(x)  # any layout of dy: the transposed view SDPA hands back
    cos, sin, cs_b, cs_s = _cos_sin(cos, sin)
    rows = b * s * h
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    programs = _programs(triton.cdiv(rows, BWD_BLOCK_M), x.device)
    partial = torch.empty(programs, d, dtype=torch.float32, device=x.device)
    args = (dy, x, weight.contiguous(), cos, sin, rstd, dx, partial, *dy.stride()[:3],
            *x.stride()[:3], cs_b, cs_s, rows, s, h)  # fmt: skip
    launch(_qk_norm_rope_bwd_kernel, (programs,), args, dict(HALF=d // 2, BLOCK_M=BWD_BLOCK_M),
           BWD_WARPS)  # fmt: skip
    return dx, partial.sum(0).to(weight.dtype)


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
