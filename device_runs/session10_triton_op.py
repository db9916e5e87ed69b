"""Does registering our RMSNorm as torch.library.triton_op (instead of custom_op) change the compiled
training step? Posts 1 §七 and 2 §6.2 measure torch.compile with our norm as an opaque custom_op
(compile_ours) against plain torch.compile; triton_op's documentation says compile can see and
optimize the Triton kernels inside it. Same weights, same batch, same process, Qwen3-0.6B x 8 layers,
4 x 2048, default sdpa (the mask tensor under compile, as in compile and compile_ours), three rounds
of the three variants; plus the generated code's count of our kernels and of Inductor's.

Usage: python device_runs/session10_triton_op.py [--smoke] -> $OUT/h200_triton_op.json
"""

import os
import statistics
import sys

import torch
import triton
from torch import nn
from torch.library import triton_op, wrap_triton

from qwen3_fusion import bench_common as bc

SMOKE = "--smoke" in sys.argv
if SMOKE:
    bc.use_smoke()
import qwen3_fusion.rmsnorm as R  # noqa: E402
from qwen3_fusion import train_step as ts  # noqa: E402


def _vec(n_cols: int, element_size: int) -> int:
    return R._vec(n_cols, element_size=element_size)


@triton_op("s10::rms_fwd", mutates_args=())
def rms_fwd(x: torch.Tensor, weight: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    n_rows, n_cols = x2.shape
    y = torch.empty(x2.shape, dtype=torch.promote_types(x.dtype, weight.dtype), device=x.device)
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    plan = R._plan(n_cols, x.dtype, x.dtype, False, x.device)
    vec = _vec(n_cols, x.element_size())
    wrap_triton(R._rmsnorm_fwd_kernel)[(triton.cdiv(n_rows, plan[0]),)](
        x2, weight.contiguous(), y, rstd, n_rows, eps, n_cols // vec, n_cols // vec, n_cols // vec,
        BLOCK_M=plan[0], BLOCK_N=plan[1], VEC=vec, num_warps=plan[2])  # fmt: skip
    return y.view(x.shape), rstd.view(x.shape[:-1])


@triton_op("s10::rms_bwd", mutates_args=())
def rms_bwd(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    x2, dy2 = x.reshape(-1, x.shape[-1]).contiguous(), dy.reshape(-1, x.shape[-1]).contiguous()
    n_rows, n_cols = x2.shape
    dx = torch.empty_like(x2)
    plan = R._plan(n_cols, x.dtype, dy.dtype, True, x.device)
    n_prog = max(1, min(triton.cdiv(n_rows, plan[0]), plan[4]))
    partial = torch.empty((n_prog, n_cols), dtype=torch.float32, device=x.device)
    vec = _vec(n_cols, min(x.element_size(), dy.element_size()))
    wrap_triton(R._rmsnorm_bwd_kernel)[(n_prog,)](
        dy2, x2, weight.contiguous(), rstd.reshape(-1), dx, partial, n_rows, n_cols // vec, n_cols // vec,
        n_cols // vec, n_cols // vec, BLOCK_M=plan[0], BLOCK_N=plan[1], VEC=vec, NUM_STAGES=plan[3],
        COMPUTE_DW=True, ATOMIC_DW=False, num_warps=plan[2])  # fmt: skip
    dw = torch.empty(n_cols, dtype=weight.dtype, device=x.device)
    block_n = min(64, max(16, triton.next_power_of_2(n_cols) // 8))
    wrap_triton(R._rmsnorm_dw_kernel)[(triton.cdiv(n_cols, block_n),)](
        partial, dw, n_prog, n_cols, BLOCK_P=64, BLOCK_N=block_n, num_warps=4)
    return dx.view(x.shape), dw


def _setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0], inputs[1], output[1])


def _backward(ctx, dy, _drstd):
    x, w, rstd = ctx.saved_tensors
    dx, dw = rms_bwd(dy, x, w, rstd)
    return dx, dw, None


rms_fwd.register_autograd(_backward, setup_context=_setup)


class TritonOpRMSNorm(nn.Module):
    def __init__(self, old):
        super().__init__()
        self.weight, self.eps = old.weight, old.variance_epsilon

    def forward(self, x):
        return rms_fwd(x, self.weight, self.eps)[0]


def build(variant, state, cfg):
    if variant != "compile_triton_op":
        return ts.build_variant(variant, state, ts.model_config(cfg))
    from qwen3_fusion.patching import replace_children
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    model = ts.build_variant("hf", state, ts.model_config(cfg))
    replace_children(model, lambda c: TritonOpRMSNorm(c) if isinstance(c, Qwen3RMSNorm) else None)
    return torch.compile(model)


def main() -> int:
    cfg = ts.SMOKE_CONFIG if SMOKE else ts.TRAIN_CONFIG
    state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
    # numerics first, eager: the triton_op path against the package's
    x = torch.randn(64, 256, device=bc.DEVICE, dtype=torch.bfloat16, requires_grad=True)
    w = torch.rand(256, device=bc.DEVICE, dtype=torch.bfloat16, requires_grad=True)
    y = rms_fwd(x, w, 1e-6)[0]
    gx, gw = torch.autograd.grad(y, (x, w), torch.ones_like(y))
    y2 = R.rms_norm(x, w, 1e-6)
    gx2, gw2 = torch.autograd.grad(y2, (x, w), torch.ones_like(y2))
    same = bool(torch.equal(y, y2) and torch.equal(gx, gx2) and torch.equal(gw, gw2))
    print("triton_op path bitwise equal to the package's:", same, flush=True)
    variants = ("compile", "compile_ours") if SMOKE else ("compile", "compile_ours", "compile_triton_op")
    models, rows = {}, []
    for variant in variants:  # each compiled once, kept: the rounds below alternate between them
        models[variant] = build(variant, state, cfg)
        ts.run_steps(models[variant], batch, cfg["warmup_steps"])
    for rnd in range(1 if SMOKE else 3):
        for variant in variants:
            timed, losses, _ = ts.run_steps(models[variant], batch, cfg["timed_steps"])
            rows.append({"round": rnd, "variant": variant, "step_ms": statistics.median(timed),
                         "step_ms_all": timed, "losses_first3": losses[:3]})  # fmt: skip
            print(f"round {rnd} {variant:18s} {statistics.median(timed):7.2f} ms  loss {losses[0]:.4f}", flush=True)
    codes = {}
    out = {"meta": bc.environment("python device_runs/session10_triton_op.py"), "config": cfg,
           "triton_op_bitwise_equal_package": same, "rows": rows, "generated_code": codes}  # fmt: skip
    print(codes, flush=True)
    bc.write_json(out, os.path.join(os.environ.get("OUT", "/tmp"), "h200_triton_op.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
