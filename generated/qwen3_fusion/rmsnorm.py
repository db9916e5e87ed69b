# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""qwen3_fusion.rmsnorm: BWD_TABLE, FWD_TABLE, INTERPRET_SMEM and 17 more (see __all__).

Tangled from src_literate/post2_triton_rmsnorm.pmd (§四, §五, §六); every block below is marked with its chunk.
"""

__all__ = [
    "BWD_TABLE",
    "FWD_TABLE",
    "INTERPRET_SMEM",
    "MAX_HIDDEN",
    "RMSNormFunction",
    "SMEM_FRACTION",
    "TritonRMSNorm",
    "as_rows",
    "check_args",
    "check_buffer",
    "check_dy",
    "device_info",
    "rms_norm",
    "rms_norm_backward",
    "rms_norm_backward_torch",
    "rms_norm_bwd_op",
    "rms_norm_forward",
    "rms_norm_fwd_op",
    "tile_config",
    "unit_stride",
]


# %% src_literate/post2_triton_rmsnorm.pmd::imports
import functools
import os

import torch
import triton
import triton.language as tl
from torch import nn
from torch.autograd.function import once_differentiable

from qwen3_fusion.launcher import launch

_FLOAT_DTYPES = (torch.float32, torch.bfloat16, torch.float16)
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"


# %% src_literate/post2_triton_rmsnorm.pmd::rmsnorm_fwd_kernel
@triton.jit
def _rmsnorm_fwd_kernel(
    x_ptr,  # (n_rows, n_cols) input, unit column stride
    w_ptr,  # (n_cols,) weight
    y_ptr,  # (n_rows, n_cols) output, dtype promote_types(x, w)
    rstd_ptr,  # (n_rows,) fp32 1 / rms, saved for the backward
    n_rows,
    eps,
    x_row_stride_v,  # row strides and n_cols in units of VEC elements
    y_row_stride_v,
    n_cols_v,
    BLOCK_M: tl.constexpr,  # rows per program
    BLOCK_N: tl.constexpr,  # next_pow2(n_cols)
    VEC: tl.constexpr,  # elements of one 16-byte vector that divide n_cols and the strides
):
    # multiplying by the constexpr VEC proves 16-byte aligned rows to the compiler, so loads
    # and stores vectorize even when n_cols is not a multiple of 16 (e.g. 3000)
    n_cols = n_cols_v * VEC
    x_row_stride, y_row_stride = x_row_stride_v * VEC, y_row_stride_v * VEC
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    row_mask = rows < n_rows
    col_mask = cols < n_cols
    mask = row_mask[:, None] & col_mask[None, :]
    r64 = rows.to(tl.int64)[:, None]  # int64 offsets: rows * stride may pass 2**31
    # upcast right after the load: all arithmetic is fp32
    x = tl.load(x_ptr + r64 * x_row_stride + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    # padded columns load as 0, so the sum is exact; divide by the true width
    rstd = tl.rsqrt(tl.sum(x * x, axis=1) / n_cols + eps)
    # round x_hat to the input dtype before the weight multiply, as Qwen3RMSNorm does
    x_hat = (x * rstd[:, None]).to(x_ptr.dtype.element_ty).to(tl.float32)
    y = x_hat * w[None, :]
    tl.store(y_ptr + r64 * y_row_stride + cols[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(rstd_ptr + rows, rstd, mask=row_mask)


# %% src_literate/post2_triton_rmsnorm.pmd::rms_norm_forward
@functools.cache
def device_info(index: int) -> tuple[int, int]:
    """(SM count, opt-in shared memory per block in bytes) of CUDA device `index`."""
    props = torch.cuda.get_device_properties(index)
    return props.multi_processor_count, props.shared_memory_per_block_optin


def _vec(*ints: int, element_size: int) -> int:
    """Largest element count of at most 16 bytes that divides every value in ints."""
    vec = 16 // element_size
    while vec > 1 and any(i % vec for i in ints):
        vec //= 2
    return vec


@functools.cache
def _plan(n_cols: int, dtype, dy_dtype, backward: bool, device: torch.device) -> tuple:
    """Everything about a launch that depends only on (N, dtypes, device), computed once:
    (BLOCK_M, BLOCK_N, num_warps, num_stages, programs per device for the backward)."""
    sms, smem = device_info(device.index) if device.type == "cuda" else (1, INTERPRET_SMEM)
    config = tile_config(n_cols, dtype, backward, dy_dtype, smem)
    k = config.kwargs
    block_n = triton.next_power_of_2(n_cols)
    return k["BLOCK_M"], block_n, config.num_warps, config.num_stages, k["PER_SM"] * sms


def _launch(kernel, grid: tuple, args: tuple, tensors, plan: tuple, **meta) -> None:
    """Launch with the cached plan (see _plan); tensors are the (M, N) row-strided operands."""
    n_cols = tensors[0].shape[1]
    strides = [t.stride(0) for t in tensors]
    vec = _vec(n_cols, *strides, element_size=min(t.element_size() for t in tensors))
    # strides and n_cols go in units of VEC elements (see the kernels)
    args = (*args, *[s // vec for s in strides], n_cols // vec)
    launch(kernel, grid, args, dict(BLOCK_M=plan[0], BLOCK_N=plan[1], VEC=vec, **meta), plan[2])


def rms_norm_forward(x, weight, eps: float = 1e-6, *, out=None, rstd=None):
    """Triton forward: x (..., N), weight (N,) -> y (..., N), rstd (...,) fp32.

    x and weight may have any strides. y has dtype promote_types(x.dtype, weight.dtype) like
    Qwen3RMSNorm. Pass `out` / `rstd` (contiguous) to receive the results in your own buffers.
    """
    check_args(x, weight)
    out_dtype = torch.promote_types(x.dtype, weight.dtype)
    if out is None:
        out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    else:
        check_buffer("out", out, x.shape, out_dtype, x.device)
    if rstd is None:
        rstd = torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device)
    else:
        check_buffer("rstd", rstd, x.shape[:-1], torch.float32, x.device)
    x2 = as_rows(x)
    n_rows, n_cols = x2.shape
    if n_rows > 0:
        plan = _plan(n_cols, x.dtype, x.dtype, False, x.device)
        y2, grid = out.view(n_rows, n_cols), ((n_rows + plan[0] - 1) // plan[0],)
        args = (x2, unit_stride(weight), y2, rstd, n_rows, eps)
        _launch(_rmsnorm_fwd_kernel, grid, args, (x2, y2), plan)
    return out, rstd


# %% src_literate/post2_triton_rmsnorm.pmd::tile_config
MAX_HIDDEN = 65536  # widest row a program holds in registers
SMEM_FRACTION = 0.7  # share of the device's shared memory per block that staged loads may use
INTERPRET_SMEM = 227 * 1024  # shared memory per block assumed on the interpreter (an H100/H200)
# Launch configs by row width N: a row serves every N up to its bound. They were picked from an
# H200 sweep at N = 128, 256, 384, 896, 1024, 2048, 2560, 4096, 5120; the 512, 3072 and 6144 rows
# come from N = 384, 2560 and 5120; the 8192 row was never swept (it ran in the unseen-widths probe), MAX_HIDDEN never on a GPU.
# forward: (largest N, rows per program, warps)
FWD_TABLE = ((128, 16, 4), (256, 8, 4), (512, 8, 4), (1024, 4, 8), (2048, 1, 4), (3072, 2, 4),
             (4096, 1, 8), (6144, 1, 4), (8192, 2, 8), (MAX_HIDDEN, 1, 16))  # fmt: skip
# backward: (largest N, rows per loop step, warps, persistent programs per SM, pipeline stages)
BWD_TABLE = ((128, 64, 4, 2, 3), (256, 64, 4, 2, 2), (512, 16, 4, 2, 2), (1024, 4, 4, 2, 3),
             (2048, 4, 4, 1, 3), (3072, 1, 4, 2, 3), (4096, 2, 8, 1, 3), (6144, 1, 8, 2, 4),
             (8192, 1, 8, 1, 3), (MAX_HIDDEN, 1, 16, 2, 2))  # fmt: skip


def tile_config(
    n_cols: int, dtype: torch.dtype, backward: bool = False, dy_dtype=None, smem: int = 0
) -> triton.Config:
    """The table's config for a row width: BLOCK_M, num_warps, num_stages, PER_SM.

    PER_SM is the number of persistent backward programs per SM. The backward's pipelined x and
    dy tiles must fit in `smem` bytes (default: what the interpreter assumes).
    """
    if not backward:
        m, warps = next((m, w) for top, m, w in FWD_TABLE if n_cols <= top)
        return triton.Config({"BLOCK_M": m, "PER_SM": 1}, num_warps=warps, num_stages=1)
    m, warps, per_sm, stages = next(r[1:] for r in BWD_TABLE if n_cols <= r[0])
    block_n = triton.next_power_of_2(n_cols)
    itemsize = dtype.itemsize + (dy_dtype or dtype).itemsize  # x and dy may differ
    budget = SMEM_FRACTION * (smem or INTERPRET_SMEM)
    staged = lambda: (stages - 1) * m * block_n * itemsize
    while stages > 1 and staged() > budget:  # x and dy tiles of stages - 1 loop steps
        m, stages = (m // 2, stages) if m > 1 else (m, stages - 1)
    return triton.Config({"BLOCK_M": m, "PER_SM": per_sm}, num_warps=warps, num_stages=stages)


# %% src_literate/post2_triton_rmsnorm.pmd::check_args
def _describe(name: str, t: torch.Tensor) -> str:
    return f"{name} of shape {tuple(t.shape)} and dtype {t.dtype} on {t.device}"


def check_args(x: torch.Tensor, weight: torch.Tensor) -> None:
    """Raise one clear ValueError for inputs the kernels do not support (cheap when all is well)."""
    ok = x.dtype in _FLOAT_DTYPES and weight.dtype in _FLOAT_DTYPES and x.dim() > 0
    ok = ok and 1 <= x.shape[-1] <= MAX_HIDDEN and weight.dim() == 1
    ok = ok and weight.shape[0] == x.shape[-1] and weight.device == x.device
    if not (ok and (x.is_cuda or _INTERPRET)):
        _raise_bad_args(x, weight)


def _raise_bad_args(x: torch.Tensor, weight: torch.Tensor) -> None:
    where = f"rms_norm: {_describe('x', x)}, {_describe('weight', weight)}"
    if x.dtype not in _FLOAT_DTYPES or weight.dtype not in _FLOAT_DTYPES:
        raise ValueError(f"{where}: x and weight must be float32, bfloat16 or float16")
    if x.dim() == 0 or not 1 <= x.shape[-1] <= MAX_HIDDEN:
        raise ValueError(f"{where}: the last dimension of x must be in 1..{MAX_HIDDEN}")
    if tuple(weight.shape) != (x.shape[-1],):
        raise ValueError(f"{where}: weight must have shape ({x.shape[-1]},)")
    if weight.device != x.device:
        raise ValueError(f"{where}: x and weight must be on the same device")
    raise ValueError(f"{where}: Triton needs CUDA tensors (or TRITON_INTERPRET=1)")


def check_dy(dy: torch.Tensor, x: torch.Tensor) -> None:
    """The backward's incoming gradient must match x in shape and device, in any float dtype."""
    if dy.shape != x.shape or dy.dtype not in _FLOAT_DTYPES or dy.device != x.device:
        got = _describe("dy", dy)
        raise ValueError(f"rms_norm backward: {got} does not match {_describe('x', x)}")


def check_buffer(name: str, t: torch.Tensor, shape, dtype, device) -> None:
    """A caller's output buffer must be contiguous with the shape, dtype and device expected."""
    if tuple(t.shape) != tuple(shape) or t.dtype != dtype or t.device != device:
        want = f"{tuple(shape)}, {dtype}, on {device}"
        raise ValueError(f"rms_norm: {_describe(name, t)}; expected {want}")
    if not t.is_contiguous():
        raise ValueError(f"rms_norm: {_describe(name, t)} must be contiguous")


def as_rows(t: torch.Tensor) -> torch.Tensor:
    """(..., N) -> (M, N) with unit column stride: a view when the layout allows one, else a copy.

    The kernels take one row stride, so any layout whose rows reshape to (M, N) with column
    stride 1 runs in place (a slice, an expanded gradient); the rest (a transpose) is copied.
    """
    t2 = t.reshape(-1, t.shape[-1])
    return t2 if t2.stride(-1) == 1 or t2.shape[-1] == 1 else t2.contiguous()


def unit_stride(w: torch.Tensor) -> torch.Tensor:
    """The weight with unit stride: the kernels index it as w_ptr + col."""
    return w if w.is_contiguous() else w.contiguous()


# %% src_literate/post2_triton_rmsnorm.pmd::rms_norm_backward_torch
def rms_norm_backward_torch(dy, x, weight, rstd):
    """The backward in PyTorch ops (the math, and the fwd-only tier): -> dx, dw."""
    rstd = rstd.unsqueeze(-1)
    x_hat = x.float() * rstd
    g = dy.float() * weight.float()
    dx = rstd * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    dw = (dy.float() * x_hat.to(x.dtype).float()).reshape(-1, x.shape[-1]).sum(0)
    return dx.to(x.dtype), dw.to(weight.dtype)


# %% src_literate/post2_triton_rmsnorm.pmd::rmsnorm_bwd_kernel
@triton.jit
def _rmsnorm_bwd_kernel(
    dy_ptr,  # (n_rows, n_cols) incoming gradient, only read
    x_ptr,  # (n_rows, n_cols) forward input
    w_ptr,  # (n_cols,) weight
    rstd_ptr,  # (n_rows,) fp32, from the forward
    dx_ptr,  # (n_rows, n_cols) gradient of x, dtype of x
    dw_partial_ptr,  # (num_programs, n_cols) fp32, one row per program
    n_rows,
    x_row_stride_v,  # row strides and n_cols in units of VEC elements
    dy_row_stride_v,
    dx_row_stride_v,
    n_cols_v,
    BLOCK_M: tl.constexpr,  # rows per loop step
    BLOCK_N: tl.constexpr,  # next_pow2(n_cols)
    VEC: tl.constexpr,  # as in the forward: proves 16-byte aligned rows
    NUM_STAGES: tl.constexpr,  # pipeline stages: NUM_STAGES - 1 blocks' loads in flight ahead of the current one
    COMPUTE_DW: tl.constexpr,  # False when the weight needs no gradient: no dW work at all
    ATOMIC_DW: tl.constexpr,  # add into one zeroed fp32 row instead: no second kernel, order varies
):
    n_cols = n_cols_v * VEC
    dy_row_stride, x_row_stride = dy_row_stride_v * VEC, x_row_stride_v * VEC
    dx_row_stride = dx_row_stride_v * VEC
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    dw_acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    # persistent: program p takes row blocks p, p + num_programs, ...; the loads of the next
    # NUM_STAGES - 1 blocks are issued while the current one is computed
    n_blocks = tl.cdiv(n_rows, BLOCK_M)
    for block in tl.range(tl.program_id(0), n_blocks, tl.num_programs(0), num_stages=NUM_STAGES):
        rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
        row_mask = rows < n_rows
        mask = row_mask[:, None] & col_mask[None, :]
        r64 = rows.to(tl.int64)[:, None]
        x = tl.load(x_ptr + r64 * x_row_stride + cols[None, :], mask=mask, other=0.0)
        dy = tl.load(dy_ptr + r64 * dy_row_stride + cols[None, :], mask=mask, other=0.0)
        x, dy = x.to(tl.float32), dy.to(tl.float32)
        rstd = tl.load(rstd_ptr + rows, mask=row_mask, other=0.0)[:, None]
        x_hat = x * rstd
        g = dy * w[None, :]
        # dx = rstd * (g - x_hat * mean(g * x_hat)), row by row
        dx = (g - x_hat * (tl.sum(g * x_hat, axis=1)[:, None] / n_cols)) * rstd
        dx = dx.to(dx_ptr.dtype.element_ty)
        tl.store(dx_ptr + r64 * dx_row_stride + cols[None, :], dx, mask=mask)
        if COMPUTE_DW:  # dW sees x_hat rounded to the input dtype, as HF's autograd does
            dw_acc += tl.sum(dy * x_hat.to(x_ptr.dtype.element_ty).to(tl.float32), axis=0)
    if COMPUTE_DW and ATOMIC_DW:  # programs land in whatever order they finish
        tl.atomic_add(dw_partial_ptr + cols, dw_acc, mask=col_mask)
    elif COMPUTE_DW:
        tl.store(dw_partial_ptr + tl.program_id(0) * n_cols + cols, dw_acc, mask=col_mask)


# %% src_literate/post2_triton_rmsnorm.pmd::rmsnorm_dw_kernel
@triton.jit
def _rmsnorm_dw_kernel(
    partial_ptr,  # (n_partials, n_cols) fp32, one row per backward program
    dw_ptr,  # (n_cols,) dW, dtype of the weight
    n_partials,
    n_cols,
    BLOCK_P: tl.constexpr,  # partial rows added per loop step
    BLOCK_N: tl.constexpr,  # columns per program
):
    # fixed summation order (loop steps, then one tree per column): dW is bitwise reproducible
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    acc = tl.zeros((BLOCK_P, BLOCK_N), dtype=tl.float32)
    for p0 in range(0, n_partials, BLOCK_P):
        p = p0 + tl.arange(0, BLOCK_P)
        mask = (p < n_partials)[:, None] & col_mask[None, :]
        acc += tl.load(partial_ptr + p[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(acc, axis=0).to(dw_ptr.dtype.element_ty), mask=col_mask)


# %% src_literate/post2_triton_rmsnorm.pmd::rms_norm_backward
def rms_norm_backward(
    dy, x, weight, rstd, *, dx=None, dw_partial=None, compute_dw=True, atomic_dw=False
):
    """Triton backward: dy, x (..., N), weight (N,), rstd (...,) fp32 -> dx (..., N), dw (N,).

    dy (any float dtype, any strides) is only read. Pass `dw_partial` (programs, N) fp32 to fix
    the number of programs; compute_dw=False skips dW and returns dw None. atomic_dw=True sums dW
    with tl.atomic_add into one fp32 row (no second kernel; dW then varies run to run in its last bits).
    """
    check_args(x, weight)
    check_dy(dy, x)
    check_buffer("rstd", rstd, x.shape[:-1], torch.float32, x.device)
    if atomic_dw and dw_partial is not None:
        raise ValueError("rms_norm_backward: atomic_dw=True takes no dw_partial")
    if dx is None:
        dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    else:
        check_buffer("dx", dx, x.shape, x.dtype, x.device)
    x2, dy2 = as_rows(x), as_rows(dy)
    n_rows, n_cols = x2.shape
    if n_rows == 0:
        return dx, torch.zeros_like(weight) if compute_dw else None
    plan = _plan(n_cols, x.dtype, dy.dtype, True, x.device)
    if dw_partial is None:
        n_prog = max(1, min((n_rows + plan[0] - 1) // plan[0], plan[4]))
        partial_rows = (1 if atomic_dw else n_prog) if compute_dw else 0
        alloc = torch.zeros if atomic_dw else torch.empty  # the atomic adds need a zeroed row
        dw_partial = alloc((partial_rows, n_cols), dtype=torch.float32, device=x.device)
    else:
        n_prog = dw_partial.shape[0]
        check_buffer("dw_partial", dw_partial, (n_prog, n_cols), torch.float32, x.device)
    dx2 = dx.view(n_rows, n_cols)
    args = (dy2, x2, unit_stride(weight), rstd.view(-1), dx2, dw_partial, n_rows)
    _launch(_rmsnorm_bwd_kernel, (n_prog,), args, (x2, dy2, dx2), plan,
            NUM_STAGES=plan[3], COMPUTE_DW=compute_dw, ATOMIC_DW=atomic_dw)  # fmt: skip
    if not compute_dw:
        return dx, None
    if atomic_dw:
        return dx, dw_partial[0].to(weight.dtype)
    dw = torch.empty(n_cols, dtype=weight.dtype, device=x.device)
    # at least 8 column blocks even for short rows: the partial rows are summed in a loop
    block_n = min(64, max(16, triton.next_power_of_2(n_cols) // 8))
    launch(_rmsnorm_dw_kernel, ((n_cols + block_n - 1) // block_n,),
           (dw_partial, dw, n_prog, n_cols), {"BLOCK_P": 64, "BLOCK_N": block_n}, 4)  # fmt: skip
    return dx, dw


# %% src_literate/post2_triton_rmsnorm.pmd::rms_norm_function
def _setup_context(ctx, inputs, output):
    """Save x, w and rstd (one float per row), nothing else; rstd is not differentiable."""
    x, weight, _eps, triton_backward = inputs
    ctx.mark_non_differentiable(output[1])
    ctx.save_for_backward(x, weight, output[1])
    ctx.triton_backward = triton_backward
    ctx.set_materialize_grads(False)  # rstd gets no gradient: no zero tensor for it


class RMSNormFunction(torch.autograd.Function):
    """Autograd of y = rms_norm(x, w): x (..., N), w (N,) -> y (..., N), plus rstd (...,) fp32.

    backward runs the Triton kernels, or the PyTorch formula when triton_backward is False; it
    skips dW when the weight needs no gradient. Eager only: under torch.compile the custom op below
    takes its place.
    """

    @staticmethod
    def forward(ctx, x, weight, eps, triton_backward):
        # forward and context in one method: with a separate setup_context, Function.apply binds
        # its arguments to forward's signature through inspect on every call (host time); the price:
        # torch.func transforms (vmap, grad) accept only the separate-setup_context form
        out = rms_norm_forward(x, weight, eps)
        _setup_context(ctx, (x, weight, eps, triton_backward), out)
        return out

    @staticmethod
    @once_differentiable  # a second derivative raises instead of being silently wrong
    def backward(ctx, dy, _drstd):
        if dy is None:  # set_materialize_grads(False): y received no gradient
            return None, None, None, None
        x, weight, rstd = ctx.saved_tensors
        need_dw = ctx.needs_input_grad[1]
        if ctx.triton_backward:
            dx, dw = rms_norm_backward(dy, x, weight, rstd, compute_dw=need_dw)
        else:
            dx, dw = rms_norm_backward_torch(dy, x, weight, rstd)
        return dx, dw if need_dw else None, None, None


# %% src_literate/post2_triton_rmsnorm.pmd::custom_ops
@torch.library.custom_op("qwen3_fusion::rms_norm_fwd", mutates_args=())
def rms_norm_fwd_op(
    x: torch.Tensor, weight: torch.Tensor, eps: float, triton_backward: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """Forward as one opaque op for torch.compile: -> y, rstd."""
    return rms_norm_forward(x, weight, eps)


@rms_norm_fwd_op.register_fake
def _(x, weight, eps, triton_backward):
    check_args(x, weight)
    y = x.new_empty(x.shape, dtype=torch.promote_types(x.dtype, weight.dtype))
    return y, x.new_empty(x.shape[:-1], dtype=torch.float32)


@torch.library.custom_op("qwen3_fusion::rms_norm_bwd", mutates_args=())
def rms_norm_bwd_op(
    dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor, compute_dw: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """Backward as one opaque op: -> dx, dw (dw empty when compute_dw is False)."""
    dx, dw = rms_norm_backward(dy, x, weight, rstd, compute_dw=compute_dw)
    return dx, weight.new_empty(0) if dw is None else dw


@rms_norm_bwd_op.register_fake
def _(dy, x, weight, rstd, compute_dw):
    return x.new_empty(x.shape), weight.new_empty(weight.shape if compute_dw else (0,))


@once_differentiable
def _op_backward(ctx, dy, _drstd):
    """The custom op's backward: the backward op (or the PyTorch formula), opaque to torch.compile."""
    x, weight, rstd = ctx.saved_tensors
    need_dw = ctx.needs_input_grad[1]
    if ctx.triton_backward:
        dx, dw = torch.ops.qwen3_fusion.rms_norm_bwd(dy, x, weight, rstd, need_dw)
    else:
        dx, dw = rms_norm_backward_torch(dy, x, weight, rstd)
    return dx, dw if need_dw else None, None, None


rms_norm_fwd_op.register_autograd(_op_backward, setup_context=_setup_context)


# %% src_literate/post2_triton_rmsnorm.pmd::rms_norm
def rms_norm(x, weight, eps: float = 1e-6, backward: str = "triton"):
    """Differentiable Qwen3 RMSNorm (backward "triton", or "torch" for the fwd-only tier)."""
    if backward not in ("triton", "torch"):
        raise ValueError(f"rms_norm: backward must be 'triton' or 'torch', got {backward!r}")
    if torch.compiler.is_compiling():
        return rms_norm_fwd_op(x, weight, eps, backward == "triton")[0]
    if torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad):
        # eager: the autograd.Function itself; the custom op's dispatch costs host time per call
        return RMSNormFunction.apply(x, weight, eps, backward == "triton")[0]
    return rms_norm_forward(x, weight, eps)[0]  # nothing to record: straight to the launch


# %% src_literate/post2_triton_rmsnorm.pmd::triton_rmsnorm_module
class TritonRMSNorm(nn.Module):
    """Drop-in Qwen3RMSNorm (same weight, variance_epsilon, state_dict) on Triton kernels."""

    def __init__(self, hidden_size: int, eps: float = 1e-6, backward: str = "triton") -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps
        self.backward_impl = backward

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return rms_norm(hidden_states, self.weight, self.variance_epsilon, self.backward_impl)

    def extra_repr(self) -> str:
        shape, eps = tuple(self.weight.shape), self.variance_epsilon
        return f"{shape}, eps={eps}, backward={self.backward_impl!r}"
