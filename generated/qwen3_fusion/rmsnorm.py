# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.


# --- src_literate/post2_triton_rmsnorm.pmd:134 (imports) ---
import functools
import os

import torch
import triton
import triton.language as tl
from torch import nn

MAX_HIDDEN = 65536  # widest row a program holds in registers
_FLOAT_DTYPES = (torch.float32, torch.bfloat16, torch.float16)
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"
_ON_GPU = torch.cuda.is_available() and not _INTERPRET
# QWEN3_FUSION_AUTOTUNE=0 runs the first candidate config on a GPU too (no tuning)
_AUTOTUNE = _ON_GPU and os.environ.get("QWEN3_FUSION_AUTOTUNE", "1") != "0"


# --- src_literate/post2_triton_rmsnorm.pmd:153 (rmsnorm_fwd_kernel) ---
@triton.jit
def _rmsnorm_fwd_kernel(
    x_ptr,  # (n_rows, n_cols) input, unit column stride
    w_ptr,  # (n_cols,) weight
    y_ptr,  # (n_rows, n_cols) output, dtype promote_types(x, w)
    rstd_ptr,  # (n_rows,) fp32 1 / rms, saved for the backward
    x_row_stride,
    y_row_stride,
    n_rows,
    n_cols,
    eps,
    BLOCK_M: tl.constexpr,  # rows per program
    BLOCK_N: tl.constexpr,  # next_pow2(n_cols)
):
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


# --- src_literate/post2_triton_rmsnorm.pmd:190 (tile_configs) ---
def tile_configs(block_n: int, backward: bool = False) -> list[triton.Config]:
    """Autotune candidates (BLOCK_M, num_warps) for rows of block_n columns, a power of two.

    A program holds a BLOCK_M x block_n fp32 tile per operand: narrow rows get many rows per
    program. The first candidate is the one used without a GPU, where Triton cannot autotune.
    """
    max_tile = 8192 if backward else 16384  # fp32 elements per operand per program
    block_m = max(1, min(128, max_tile // block_n))
    configs = []
    for m in (block_m, block_m // 2, block_m // 4):
        warps = (4, 8, 16) if m * block_n <= 16384 else (16, 32)
        configs += [triton.Config({"BLOCK_M": m}, num_warps=w) for w in warps if m >= 1]
    return configs


def bwd_num_programs(n_rows: int, block_n: int, device: torch.device) -> int:
    """Persistent backward grid: a few programs per SM (per device on the interpreter)."""
    per_sm = 8 if block_n <= 256 else 4 if block_n <= 4096 else 2
    sms = _sm_count(device.index) if device.type == "cuda" else 1
    return max(1, min(n_rows, per_sm * sms))


@functools.cache
def _sm_count(index: int) -> int:
    return torch.cuda.get_device_properties(index).multi_processor_count


# --- src_literate/post2_triton_rmsnorm.pmd:218 (launch) ---
@functools.cache
def _autotuned(kernel, block_n: int, backward: bool):
    """One autotuner per (kernel, row width), over that width's candidates."""
    return triton.autotune(configs=tile_configs(block_n, backward), key=["n_cols"])(kernel)


def _launch(kernel, grid, args: tuple, block_n: int, backward: bool) -> None:
    """Launch autotuned on a GPU; elsewhere (or with autotuning off) with the first candidate."""
    if _AUTOTUNE:
        _autotuned(kernel, block_n, backward)[grid](*args, BLOCK_N=block_n)
        return
    config = tile_configs(block_n, backward)[0]
    meta = dict(config.kwargs, BLOCK_N=block_n)
    kernel[grid(meta)](*args, **meta, num_warps=config.num_warps)


# --- src_literate/post2_triton_rmsnorm.pmd:237 (check_args) ---
def _describe(name: str, t: torch.Tensor) -> str:
    return f"{name} of shape {tuple(t.shape)} and dtype {t.dtype} on {t.device}"


def _check_args(x: torch.Tensor, weight: torch.Tensor) -> None:
    """Raise one clear ValueError for inputs the kernels do not support."""
    where = f"rms_norm: {_describe('x', x)}, {_describe('weight', weight)}"
    if x.dtype not in _FLOAT_DTYPES or weight.dtype not in _FLOAT_DTYPES:
        raise ValueError(f"{where}: x and weight must be float32, bfloat16 or float16")
    if x.dim() == 0 or not 1 <= x.shape[-1] <= MAX_HIDDEN:
        raise ValueError(f"{where}: the last dimension of x must be in 1..{MAX_HIDDEN}")
    if tuple(weight.shape) != (x.shape[-1],):
        raise ValueError(f"{where}: weight must have shape ({x.shape[-1]},)")
    if weight.device != x.device:
        raise ValueError(f"{where}: x and weight must be on the same device")
    if x.device.type != "cuda" and not _INTERPRET:
        raise ValueError(f"{where}: Triton needs CUDA tensors (or TRITON_INTERPRET=1)")


def _check_buffer(name: str, t: torch.Tensor, shape, dtype, device) -> None:
    """A caller's output buffer must be contiguous with the shape, dtype and device expected."""
    if tuple(t.shape) != tuple(shape) or t.dtype != dtype or t.device != device:
        want = f"{tuple(shape)}, {dtype}, on {device}"
        raise ValueError(f"rms_norm: {_describe(name, t)}; expected {want}")
    if not t.is_contiguous():
        raise ValueError(f"rms_norm: {_describe(name, t)} must be contiguous")


def _rows(t: torch.Tensor) -> torch.Tensor:
    """(..., N) -> (M, N) with unit column stride: a view when the layout allows one."""
    t2 = t.reshape(-1, t.shape[-1])
    return t2 if t2.stride(-1) == 1 else t2.contiguous()


# --- src_literate/post2_triton_rmsnorm.pmd:272 (rms_norm_forward) ---
def rms_norm_forward(x, weight, eps: float = 1e-6, *, out=None, rstd=None):
    """Triton forward: x (..., N), weight (N,) -> y (..., N), rstd (...,) fp32.

    y has dtype promote_types(x.dtype, weight.dtype) like Qwen3RMSNorm. Pass `out` / `rstd`
    (contiguous) to receive the results in buffers of your own.
    """
    _check_args(x, weight)
    out_dtype = torch.promote_types(x.dtype, weight.dtype)
    if out is None:
        out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    if rstd is None:
        rstd = torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device)
    _check_buffer("out", out, x.shape, out_dtype, x.device)
    _check_buffer("rstd", rstd, x.shape[:-1], torch.float32, x.device)
    x2 = _rows(x)
    n_rows, n_cols = x2.shape
    if n_rows > 0:
        y2 = out.view(n_rows, n_cols)
        args = (x2, weight, y2, rstd, x2.stride(0), y2.stride(0), n_rows, n_cols, eps)
        grid = lambda meta: (triton.cdiv(n_rows, meta["BLOCK_M"]),)
        _launch(_rmsnorm_fwd_kernel, grid, args, triton.next_power_of_2(n_cols), backward=False)
    return out, rstd


# --- src_literate/post2_triton_rmsnorm.pmd:399 (rms_norm_backward_torch) ---
def rms_norm_backward_torch(dy, x, weight, rstd):
    """The backward in PyTorch ops (the math, and the fwd-only tier): -> dx, dw."""
    rstd = rstd.unsqueeze(-1)
    x_hat = x.float() * rstd
    g = dy.float() * weight.float()
    dx = rstd * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
    dw = (dy.float() * x_hat.to(x.dtype).float()).reshape(-1, x.shape[-1]).sum(0)
    return dx.to(x.dtype), dw.to(weight.dtype)


# --- src_literate/post2_triton_rmsnorm.pmd:414 (rmsnorm_bwd_kernel) ---
@triton.jit
def _rmsnorm_bwd_kernel(
    dy_ptr,  # (n_rows, n_cols) incoming gradient, only read
    x_ptr,  # (n_rows, n_cols) forward input
    w_ptr,  # (n_cols,) weight
    rstd_ptr,  # (n_rows,) fp32, from the forward
    dx_ptr,  # (n_rows, n_cols) gradient of x, dtype of x
    dw_partial_ptr,  # (num_programs, n_cols) fp32, one row per program
    dy_row_stride,
    x_row_stride,
    dx_row_stride,
    n_rows,
    n_cols,
    rows_per_program,
    BLOCK_M: tl.constexpr,  # rows per loop step
    BLOCK_N: tl.constexpr,  # next_pow2(n_cols)
):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    dw_acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    # persistent: this program owns rows [row_start, row_end), BLOCK_M at a time
    row_start = pid * rows_per_program
    row_end = tl.minimum(row_start + rows_per_program, n_rows)
    for start in range(row_start, row_end, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        row_mask = rows < row_end
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
        # dW sees x_hat rounded to the input dtype, as autograd through Qwen3RMSNorm does
        dw_acc += tl.sum(dy * x_hat.to(x_ptr.dtype.element_ty).to(tl.float32), axis=0)
    tl.store(dw_partial_ptr + pid * n_cols + cols, dw_acc, mask=col_mask)


# --- src_literate/post2_triton_rmsnorm.pmd:462 (rms_norm_backward) ---
def rms_norm_backward(dy, x, weight, rstd, *, dx=None, dw_partial=None):
    """Triton backward: dy, x (..., N), weight (N,), rstd (...,) fp32 -> dx (..., N), dw (N,).

    dy is only read. dw is the fixed-order torch sum of an fp32 (programs, N) buffer, so it
    is bitwise deterministic; pass `dw_partial` to choose the number of programs yourself.
    """
    _check_args(x, weight)
    if dy.shape != x.shape or dy.dtype not in _FLOAT_DTYPES or dy.device != x.device:
        got = _describe("dy", dy)
        raise ValueError(f"rms_norm backward: {got} does not match {_describe('x', x)}")
    _check_buffer("rstd", rstd, x.shape[:-1], torch.float32, x.device)
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device) if dx is None else dx
    _check_buffer("dx", dx, x.shape, x.dtype, x.device)
    x2, dy2 = _rows(x), _rows(dy)
    n_rows, n_cols = x2.shape
    if n_rows == 0:
        return dx, torch.zeros_like(weight)
    block_n = triton.next_power_of_2(n_cols)
    if dw_partial is None:
        n_prog = bwd_num_programs(n_rows, block_n, x.device)
        dw_partial = torch.empty(n_prog, n_cols, dtype=torch.float32, device=x.device)
    _check_buffer("dw_partial", dw_partial, (dw_partial.shape[0], n_cols), torch.float32, x.device)
    n_prog, dx2 = dw_partial.shape[0], dx.view(n_rows, n_cols)
    args = (dy2, x2, weight, rstd.view(-1), dx2, dw_partial, dy2.stride(0), x2.stride(0))
    args += (dx2.stride(0), n_rows, n_cols, triton.cdiv(n_rows, n_prog))
    _launch(_rmsnorm_bwd_kernel, lambda meta: (n_prog,), args, block_n, backward=True)
    return dx, dw_partial.sum(0).to(weight.dtype)


# --- src_literate/post2_triton_rmsnorm.pmd:496 (rms_norm_function) ---
class RMSNormFunction(torch.autograd.Function):
    """Autograd of (y, rstd) = rms_norm(x, w): x (..., N), w (N,) -> y (..., N), rstd (...,).

    Saves x, w and the fp32 rstd (one float per row), nothing else. backward runs the Triton
    backward op, or the PyTorch formula when triton_backward is False.
    """

    @staticmethod
    def forward(x, weight, eps, triton_backward):
        return rms_norm_forward(x, weight, eps)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, weight, _eps, triton_backward = inputs
        ctx.save_for_backward(x, weight, output[1])
        ctx.triton_backward = triton_backward

    @staticmethod
    def backward(ctx, dy, _drstd):
        x, weight, rstd = ctx.saved_tensors
        if ctx.triton_backward:
            dx, dw = torch.ops.qwen3_fusion.rms_norm_bwd(dy, x, weight, rstd)
        else:
            dx, dw = rms_norm_backward_torch(dy, x, weight, rstd)
        return dx, dw, None, None


# --- src_literate/post2_triton_rmsnorm.pmd:524 (custom_ops) ---
@torch.library.custom_op("qwen3_fusion::rms_norm_fwd", mutates_args=())
def rms_norm_fwd_op(
    x: torch.Tensor, weight: torch.Tensor, eps: float, triton_backward: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """Forward as one opaque op for torch.compile: -> y, rstd."""
    return rms_norm_forward(x, weight, eps)


@rms_norm_fwd_op.register_fake
def _(x, weight, eps, triton_backward):
    _check_args(x, weight)
    y = x.new_empty(x.shape, dtype=torch.promote_types(x.dtype, weight.dtype))
    return y, x.new_empty(x.shape[:-1], dtype=torch.float32)


@torch.library.custom_op("qwen3_fusion::rms_norm_bwd", mutates_args=())
def rms_norm_bwd_op(
    dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Backward as one opaque op: -> dx, dw."""
    return rms_norm_backward(dy, x, weight, rstd)


@rms_norm_bwd_op.register_fake
def _(dy, x, weight, rstd):
    return x.new_empty(x.shape), torch.empty_like(weight)


rms_norm_fwd_op.register_autograd(
    RMSNormFunction.backward, setup_context=RMSNormFunction.setup_context
)


# --- src_literate/post2_triton_rmsnorm.pmd:558 (rms_norm) ---
def rms_norm(x, weight, eps: float = 1e-6, backward: str = "triton"):
    """Differentiable Qwen3 RMSNorm: x (..., N), weight (N,) -> (..., N).

    backward="triton" runs the Triton backward; "torch" the PyTorch formula (fwd-only tier).
    """
    if backward not in ("triton", "torch"):
        raise ValueError(f"rms_norm: backward must be 'triton' or 'torch', got {backward!r}")
    return rms_norm_fwd_op(x, weight, eps, backward == "triton")[0]


# --- src_literate/post2_triton_rmsnorm.pmd:643 (triton_rmsnorm_module) ---
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


__all__ = [
    "MAX_HIDDEN",
    "RMSNormFunction",
    "TritonRMSNorm",
    "bwd_num_programs",
    "rms_norm",
    "rms_norm_backward",
    "rms_norm_backward_torch",
    "rms_norm_bwd_op",
    "rms_norm_forward",
    "rms_norm_fwd_op",
    "tile_configs",
]
