# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""Training-step probes the step tables rest on, one command each:
`python -m qwen3_fusion.bench --probe NAME[,NAME]` (listed with the others in bench_probes).

liger_groups  Liger's Qwen3 patch one group at a time beside HF eager, in one process per config:
              FLCE alone at chunk_mem_const 1 (Liger 0.8.5's default for Qwen3), 4 and 16, RoPE +
              RMSNorm + SwiGLU without FLCE, and the whole patch at 16; step time and peak memory,
              and one profiled steady step of HF, FLCE at 16 and the whole patch at 16 (kernels,
              GPU kernel and busy time, attention time)  (-> <gpu>_liger_groups.json)
step_host     where a step's time goes: HF eager at 4 x 2048 and 1 x 128, torch.compile without and
              with mode="reduce-overhead" at 1 x 128, and the whole Liger patch (FLCE at 16) at
              4 x 2048; step time, the host's time to issue one step from an idle device, and the
              kernels and GPU busy time of one steady step  (-> <gpu>_step_host.json)
triton_op     our RMSNorm registered with torch.library.triton_op (Inductor sees its kernels) against
              the package's custom op (opaque) and plain torch.compile, under whole-model compile,
              three alternating rounds  (-> <gpu>_triton_op.json)

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "GROUP_PLAN",
    "LIGER_GROUPS",
    "PROFILED",
    "liger_groups",
    "liger_model",
    "steady_profile",
    "step_host",
    "triton_op",
    "triton_op_model",
    "triton_op_pair",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_steps_head
import statistics

import torch

from qwen3_fusion import bench_common as bc
from qwen3_fusion import train_step as ts

# keyword arguments of apply_liger_kernel_to_qwen3 per group; None: HF's code throughout
LIGER_GROUPS = {
    "hf": None,
    "flce_only": dict(rope=False, rms_norm=False, swiglu=False, fused_linear_cross_entropy=True),
    "no_flce": dict(rope=True, rms_norm=True, swiglu=True, fused_linear_cross_entropy=False),
    "full": {},
}
# (group, chunk_mem_const or None for Liger's own); the profiled ones are marked
GROUP_PLAN = (("hf", None), ("flce_only", 1), ("flce_only", 4), ("flce_only", 16), ("no_flce", None),
              ("full", 16))  # fmt: skip
PROFILED = {("hf", None), ("flce_only", 16), ("full", 16)}


def steady_profile(model, batch, opt) -> dict:
    """Kernels, GPU kernel ms, GPU busy ms (the union of kernel intervals) and attention ms of one
    profiled step that reuses the timed steps' optimizer, whose state already exists (a fresh
    AdamW's first step also allocates and zeroes it: three more kernels per parameter)."""
    if bc.SMOKE:
        return {"kernels": 0, "kernel_ms": 0.0, "busy_ms": 0.0, "attention_ms": 0.0}
    from qwen3_fusion.bench_probes import profiled_step

    p = profiled_step(model, batch, opt)
    return {"kernels": p["kernels"], "kernel_ms": p["kernel_ms"], "busy_ms": p["busy_ms"],
            "attention_ms": p["by_class_ms"].get("attention", 0.0)}  # fmt: skip


def _timed_row(model, batch, cfg: dict, profiled: bool, **tags) -> dict:
    """Warm-up, then the timed steps, the host's issue time and (profiled) one steady profile."""
    ts.run_steps(model, batch, cfg["warmup_steps"])
    timed, losses, opt = ts.run_steps(model, batch, cfg["timed_steps"])
    host = ts.host_issue_ms(model, batch, opt)
    row = {**tags, "step_ms": statistics.median(timed), "step_ms_all": timed,
           "host_issue_ms": statistics.median(host), "host_issue_ms_samples": host,
           "peak_gb": 0.0 if bc.SMOKE else torch.cuda.max_memory_allocated() / 1e9,
           "losses_first3": losses[:3]}  # fmt: skip
    if profiled:
        row.update(steady_profile(model, batch, opt))
    return row


def _fresh_device() -> None:
    torch._dynamo.reset()
    if not bc.SMOKE:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


# %% src_literate/post2_triton_rmsnorm.pmd::bench_steps_liger
def liger_model(group: str, const, state, cfg: dict):
    """HF's Qwen3 with one group of Liger's patch, FLCE forced to chunk_mem_const `const` (None:
    Liger's own). Call inside ts.qwen3_globals_kept() and ts.flce_chunks_kept()."""
    model = ts.build_variant("hf", state, ts.model_config(cfg))
    if LIGER_GROUPS[group] is not None:
        from liger_kernel.transformers import apply_liger_kernel_to_qwen3

        if const is not None:
            ts.force_flce_chunk_mem_const(const)
        apply_liger_kernel_to_qwen3(model=model, **LIGER_GROUPS[group])
    return model


def liger_groups(log=print) -> dict:
    """See the module docstring; under --smoke only HF's row (Liger's kernels need a GPU)."""
    configs = {}
    for key, cfg in ts.bench_configs().items():
        state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
        rows = []
        for group, const in GROUP_PLAN[:1] if bc.SMOKE else GROUP_PLAN:
            try:
                with ts.qwen3_globals_kept(), ts.flce_chunks_kept():
                    _fresh_device()
                    model = liger_model(group, const, state, cfg)
                    tags = {"group": group, "chunk_mem_const": const}
                    rows.append(_timed_row(model, batch, cfg, (group, const) in PROFILED, **tags))
                    del model
            except Exception as exc:  # noqa: BLE001 - one group must not stop the others
                log(f"{key} {group} failed: {type(exc).__name__}: {str(exc)[:300]}")
                continue
            r = rows[-1]
            log(f"{key} {group} C={const}: {r['step_ms']:.1f} ms, peak {r['peak_gb']:.1f} GB")
        configs[key] = rows
    return {"configs": configs}


# %% src_literate/post2_triton_rmsnorm.pmd::bench_steps_host
def step_host(log=print) -> dict:
    """See the module docstring."""
    cfg = ts.SMOKE_CONFIG if bc.SMOKE else ts.TRAIN_CONFIG
    small = dict(cfg, batch=1, seq=8 if bc.SMOKE else 128)
    plan = [("hf", cfg), ("hf", small), ("compile", small), ("compile_ro", small)]
    plan += [] if bc.SMOKE else [("liger_full_coarse", cfg)]
    rows, inputs = [], {}  # the seeded weights and tokens of each shape, made once
    for variant, c in plan:
        shape = f"{c['batch']}x{c['seq']}"
        if shape not in inputs:
            inputs[shape] = ts.reference_state(c), ts.make_batch(c)
        state, batch = inputs[shape]
        try:
            with ts.qwen3_globals_kept(), ts.flce_chunks_kept():
                _fresh_device()
                model = ts.build_variant(variant, state, ts.model_config(c))
                rows.append(_timed_row(model, batch, c, True, variant=variant, shape=shape,
                                       layers=c["layers"], hidden=c["hidden"]))  # fmt: skip
                del model
        except Exception as exc:  # noqa: BLE001 - keep the other rows (reduce-overhead needs CUDA)
            log(f"{variant} {shape} failed: {type(exc).__name__}: {str(exc)[:300]}")
            continue
        r = rows[-1]
        log(f"{variant} {shape}: step {r['step_ms']:.1f} ms, host {r['host_issue_ms']:.1f} ms, "
            f"{r['kernels']} kernels, busy {r['busy_ms']:.1f} ms")  # fmt: skip
    _fresh_device()
    return {"rows": rows}


# %% src_literate/post2_triton_rmsnorm.pmd::bench_steps_triton_op
_TRITON_OPS = {}


def triton_op_pair():
    """Our RMSNorm as a torch.library.triton_op pair (forward, backward joined by register_autograd):
    the package's kernels and launch plan, wrapped with wrap_triton so that Inductor sees them.
    Registered once per process."""
    if _TRITON_OPS:
        return _TRITON_OPS["fwd"]
    import triton
    from torch.library import triton_op, wrap_triton

    from qwen3_fusion import rmsnorm as R

    @triton_op("qwen3_fusion_bench::rms_fwd", mutates_args=())
    def rms_fwd(x: torch.Tensor, weight: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        n_rows, n_cols = x2.shape
        y = torch.empty(x2.shape, dtype=torch.promote_types(x.dtype, weight.dtype), device=x.device)
        rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
        block_m, block_n, warps = R._plan(n_cols, x.dtype, x.dtype, False, x.device)[:3]
        v = R._vec(n_cols, element_size=x.element_size())
        wrap_triton(R._rmsnorm_fwd_kernel)[(triton.cdiv(n_rows, block_m),)](
            x2, weight.contiguous(), y, rstd, n_rows, eps, n_cols // v, n_cols // v, n_cols // v,
            BLOCK_M=block_m, BLOCK_N=block_n, VEC=v, num_warps=warps)  # fmt: skip
        return y.view(x.shape), rstd.view(x.shape[:-1])

    @triton_op("qwen3_fusion_bench::rms_bwd", mutates_args=())
    def rms_bwd(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
        x2, dy2 = x.reshape(-1, x.shape[-1]).contiguous(), dy.reshape(-1, x.shape[-1]).contiguous()
        n_rows, n_cols = x2.shape
        dx = torch.empty_like(x2)
        block_m, block_n, warps, stages, programs = R._plan(n_cols, x.dtype, dy.dtype, True, x.device)  # fmt: skip
        n_prog = max(1, min(triton.cdiv(n_rows, block_m), programs))
        partial = torch.empty((n_prog, n_cols), dtype=torch.float32, device=x.device)
        v = R._vec(n_cols, element_size=min(x.element_size(), dy.element_size()))
        wrap_triton(R._rmsnorm_bwd_kernel)[(n_prog,)](
            dy2, x2, weight.contiguous(), rstd.reshape(-1), dx, partial, n_rows, n_cols // v, n_cols // v,
            n_cols // v, n_cols // v, BLOCK_M=block_m, BLOCK_N=block_n, VEC=v, NUM_STAGES=stages,
            COMPUTE_DW=True, ATOMIC_DW=False, num_warps=warps)  # fmt: skip
        dw = torch.empty(n_cols, dtype=weight.dtype, device=x.device)
        dw_block = min(64, max(16, triton.next_power_of_2(n_cols) // 8))  # as rms_norm_backward
        wrap_triton(R._rmsnorm_dw_kernel)[(triton.cdiv(n_cols, dw_block),)](
            partial, dw, n_prog, n_cols, BLOCK_P=64, BLOCK_N=dw_block, num_warps=4)  # fmt: skip
        return dx.view(x.shape), dw

    def save(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], inputs[1], output[1])

    def grads(ctx, dy, _drstd):
        x, w, rstd = ctx.saved_tensors
        return *rms_bwd(dy, x, w, rstd), None

    rms_fwd.register_autograd(grads, setup_context=save)
    _TRITON_OPS["fwd"] = rms_fwd
    return rms_fwd


def triton_op_model(state, cfg: dict):
    """torch.compile of HF's Qwen3 with every Qwen3RMSNorm's forward on the triton_op pair."""
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    from qwen3_fusion.patching import replace_children

    rms_fwd = triton_op_pair()

    class TritonOpRMSNorm(torch.nn.Module):
        def __init__(self, old):
            super().__init__()
            self.weight, self.eps = old.weight, old.variance_epsilon

        def forward(self, x):
            return rms_fwd(x, self.weight, self.eps)[0]

    model = ts.build_variant("hf", state, ts.model_config(cfg))
    replace_children(model, lambda c: TritonOpRMSNorm(c) if isinstance(c, Qwen3RMSNorm) else None)
    return torch.compile(model)


def triton_op(log=print) -> dict:
    """See the module docstring; also whether the triton_op pair's y, dx, dw equal the package's."""
    from qwen3_fusion import rmsnorm as R

    rms_fwd = triton_op_pair()
    g = torch.Generator(device=bc.DEVICE).manual_seed(0)
    x = torch.randn(64, 256, device=bc.DEVICE, generator=g).to(torch.bfloat16).requires_grad_()
    w = (torch.rand(256, device=bc.DEVICE, generator=g) + 0.5).to(torch.bfloat16).requires_grad_()
    outs = []
    for fn in (lambda: rms_fwd(x, w, 1e-6)[0], lambda: R.rms_norm(x, w, 1e-6)):
        y = fn()
        outs.append((y, *torch.autograd.grad(y, (x, w), torch.ones_like(y))))
    same = all(torch.equal(a, b) for a, b in zip(*outs, strict=True))
    log(f"triton_op pair bitwise equal to the package's rms_norm: {same}")
    cfg = ts.SMOKE_CONFIG if bc.SMOKE else ts.TRAIN_CONFIG
    state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
    variants = ["compile", "compile_ours"]
    if not bc.SMOKE:  # Inductor runs user-defined Triton kernels on a GPU only
        variants.append("compile_triton_op")
    models, rows = {}, []
    for variant in variants:  # each compiled once and kept: the rounds alternate between them
        if variant == "compile_triton_op":
            models[variant] = triton_op_model(state, cfg)
        else:
            models[variant] = ts.build_variant(variant, state, ts.model_config(cfg))
        ts.run_steps(models[variant], batch, cfg["warmup_steps"])
    for rnd in range(1 if bc.SMOKE else 3):
        for variant in variants:
            timed, losses, _ = ts.run_steps(models[variant], batch, cfg["timed_steps"])
            rows.append({"round": rnd, "variant": variant, "step_ms": statistics.median(timed),
                         "step_ms_all": timed, "losses_first3": losses[:3]})  # fmt: skip
            log(f"round {rnd} {variant}: {rows[-1]['step_ms']:.2f} ms")
    del models
    _fresh_device()
    return {"config": cfg, "triton_op_bitwise_equal_package": same, "rows": rows}
