# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""Side measurements the posts cite beyond the main bench, one command each:
`python -m qwen3_fusion.bench --probe NAME[,NAME]` writes <gpu>_<file>.json per probe.

multistage  torch.compile's RMSNorm with Inductor's multi-stage mix-order loops off and on, at
            every bench shape, beside ours (-> <gpu>_compile_multistage.json)
unseen      ours and every peer at five row widths the tile table was never swept at, and
            compile's forward with emulate_precision_casts on the q_norm shape (-> _unseen_shapes)
casts       compile's bitwise agreement with HF eager and its forward time, emulate_precision_casts
            off and on (-> _emulate_casts)
in_flight   our backward run in Liger's shape of work, one knob stepped up at a time, beside
            Liger's own backward; bf16 gradient errors of a 2-layer Qwen3 against fp32 (-> _backward_probe)
by_class    one profiled training step's GPU time by kernel class, per variant (-> _kernels_by_class)
sdpa_mask   one layer's sdpa forward + backward at both step configs, with the (batch, 1, seq, seq) bool
            causal mask that transformers builds under torch.compile and with is_causal=True instead,
            and the attention kernels each runs (-> _sdpa_mask)
liger_groups, step_host, triton_op
            training-step probes of qwen3_fusion.bench_steps (see its docstring)
bwd_split   each backward's GPU time per kernel at the bench's bf16 shapes (qwen3_fusion.bench_split)
qk_rope     q/k norm + RoPE: HF eager, torch.compile and the fused kernels (qwen3_fusion.bench_qk_rope)
atomic_dw   our backward with dW summed by tl.atomic_add instead of two stages: time and run-to-run
            distinct dW results (qwen3_fusion.bench_atomic)

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "FLAG",
    "PROBES",
    "PROBE_FILES",
    "UNSEEN_WIDTHS",
    "backward_in_flight",
    "by_class",
    "bytes_in_flight_per_sm",
    "casts",
    "gradient_errors",
    "in_flight",
    "multistage",
    "profiled_step",
    "run_probe",
    "sdpa_mask",
    "unseen",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_probes_head
import contextlib
import os

import torch

from qwen3_fusion import bench_common as bc

FLAG = "mix_order_reduction_allow_multi_stages"  # torch._inductor.config.triton; on by default from 2.13
UNSEEN_WIDTHS = (768, 1536, 3584, 6144, 8192)
PROBE_FILES = {"multistage": "compile_multistage", "unseen": "unseen_shapes", "casts": "emulate_casts",
               "in_flight": "backward_probe", "by_class": "kernels_by_class", "sdpa_mask": "sdpa_mask",
               "liger_groups": "liger_groups", "step_host": "step_host", "triton_op": "triton_op",
               "bwd_split": "backward_split", "qk_rope": "qk_norm_rope", "atomic_dw": "atomic_dw"}  # fmt: skip


def _timed(impl, x, w, dy, ref, ceiling, log, **tags) -> list:
    """time_rmsnorm's rows for one impl and shape, tagged, without the output tensor."""
    from qwen3_fusion import bench_norms as norms

    rows = []
    for r in norms.time_rmsnorm(impl, x, w, dy, ref, ceiling):
        r.pop("y", None)
        rows.append({**r, **tags})
        log(
            f"{r['rows']}x{r['n']} {r['dtype']} {impl:14s} {tags} {r['pass']} {1e3 * r['ms']:.1f} us"
        )
    return rows


@contextlib.contextmanager
def _multi_stages(on):
    """Inductor's multi-stage mix-order loops on or off inside the block (on=None: left alone,
    for a torch without the flag); the setting before is restored even if the block fails."""
    from torch._inductor import config

    old = getattr(config.triton, FLAG, None)
    if on is not None:
        setattr(config.triton, FLAG, on)
    try:
        yield
    finally:
        if on is not None:
            setattr(config.triton, FLAG, old)


@contextlib.contextmanager
def _emulate_casts(on: bool):
    """Inductor's emulate_precision_casts inside the block, restored after."""
    from torch._inductor import config

    old, config.emulate_precision_casts = config.emulate_precision_casts, on
    try:
        yield
    finally:
        config.emulate_precision_casts = old


def multistage(log=print) -> dict:
    from torch._inductor import config

    from qwen3_fusion import bench_norms as norms

    if not hasattr(config.triton, FLAG):
        return {"skipped": f"torch {torch.__version__} has no inductor config triton.{FLAG}"}
    res = {"flag": "triton." + FLAG, "default": getattr(config.triton, FLAG), "rows": []}
    ceiling = bc.copy_ceiling()["gbps"]
    for rows, n, dtype in norms.SMOKE_SHAPES if bc.SMOKE else norms.RMSNORM_SHAPES:
        x, w, dy = norms.rmsnorm_inputs(rows, n, dtype)
        ref = norms.rmsnorm_reference(x, w, dy)
        res["rows"] += _timed("ours", x, w, dy, ref, ceiling, log, multi_stages=None)
        for on in (False, True):
            with _multi_stages(on):
                res["rows"] += _timed("torch_compile", x, w, dy, ref, ceiling, log, multi_stages=on)
    return res


def _peers() -> tuple:
    return ("ours", "f_rms_norm", "hf_eager") + (() if bc.SMOKE else ("liger_inplace", "liger"))


def unseen(log=print) -> dict:
    from torch._inductor import config

    from qwen3_fusion import bench_norms as norms

    res = {"rows": [], "copy_by_shape": [], "copy_by_shape_bwd": [], "emulate_n128": []}
    ceiling = bc.copy_ceiling()["gbps"]
    for rows, n in [(64, 96), (64, 200)] if bc.SMOKE else [(16384, n) for n in UNSEEN_WIDTHS]:
        x, w, dy = norms.rmsnorm_inputs(rows, n, torch.bfloat16)
        ref = norms.rmsnorm_reference(x, w, dy)
        res["copy_by_shape"].append(bc.copy_same_size(x, ceiling))
        res["copy_by_shape_bwd"].append(bc.copy_same_size(x, ceiling, passes=3))
        for impl in _peers():
            res["rows"] += _timed(impl, x, w, dy, ref, ceiling, log)
        for on in (False, True) if hasattr(config.triton, FLAG) else (None,):
            with _multi_stages(on):
                res["rows"] += _timed("torch_compile", x, w, dy, ref, ceiling, log, multi_stages=on)
    rows, n = (64, 96) if bc.SMOKE else (262144, 128)  # the q_norm shape: beyond L2
    x, w, dy = norms.rmsnorm_inputs(rows, n, torch.bfloat16)
    ref = norms.rmsnorm_reference(x, w, dy)
    for rnd in range(1 if bc.SMOKE else 3):
        for emulate in (False, True):
            with _emulate_casts(emulate):
                fwd = _timed(
                    "torch_compile", x, w, dy, ref, ceiling, log, emulate=emulate, round=rnd
                )
            res["emulate_n128"] += [r for r in fwd if r["pass"] == "fwd"]
    return res


def casts(log=print, rounds: int = 2) -> dict:
    """Per width: share of compile's bf16 outputs bitwise equal to HF eager, and its graph-timed
    forward, emulate_precision_casts off and on; each round compiles afresh."""
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    from qwen3_fusion import bench_norms as norms

    res = {"rows": []}
    rows = 64 if bc.SMOKE else 16384
    widths = (128, 1024) if bc.SMOKE else (128, 1024, 2048, 4096)
    for rnd, n in [(rnd, n) for rnd in range(rounds) for n in widths]:
        x, w, _ = norms.rmsnorm_inputs(rows, n, torch.bfloat16)
        m = Qwen3RMSNorm(n, eps=bc.EPS).to(x.device, torch.bfloat16)
        with torch.no_grad():
            m.weight.copy_(w)
            ref = m(x)
            for emulate in (False, True):
                torch._dynamo.reset()
                with _emulate_casts(emulate):  # compiled at the first call, inside the block
                    c = torch.compile(m)
                    eq = float((c(x) == ref).float().mean())
                    ms = bc.graph_ms(lambda c=c, x=x: c(x), 5, 50)
                res["rows"].append({"rows": rows, "n": n, "emulate_precision_casts": emulate, "round": rnd,
                                    "bitwise_equal_hf": eq, "fwd_ms": ms})  # fmt: skip
                log(f"casts {rows}x{n} emulate={emulate} round {rnd}: equal {eq:.4f}, {ms:.4f} ms")
    return res


# %% src_literate/post2_triton_rmsnorm.pmd::bench_probes_in_flight
def _liger_warps(n: int) -> int:
    """num_warps of Liger 0.8.5's calculate_settings for a row of n elements."""
    import triton

    b = triton.next_power_of_2(n)
    return 16 if b >= 8192 else 8 if b >= 2048 else 4


def _liger_bwd_ms(impl, x, w, dy) -> float:
    """Graph-timed backward of LigerRMSNorm (in place or not) alone."""
    from qwen3_fusion.bench_norms import make_norm

    fn, weight = make_norm(impl, x.shape[1], w)
    xg, side = x.detach().requires_grad_(), torch.cuda.Stream()
    with torch.cuda.stream(side):  # backward nodes run on their forward's stream: the capture one
        yg = fn(xg)
    bc.sync()
    g = dy.clone()  # the in-place variant overwrites it
    return bc.graph_ms(
        lambda: torch.autograd.grad(yg, (xg, weight), g, retain_graph=True), 5, 25, stream=side
    )


def bytes_in_flight_per_sm(
    per_sm: int, block_m: int, stages: int, n: int, elem_bytes: int = 2
) -> int:
    """The most x and dy bytes a backward config has loading per SM: programs x rows per step x
    row blocks in flight x 2 tensors x row bytes. Triton's pipeliner gives a tl.range loop of
    num_stages S a ring of S - 1 shared-memory buffers and waits for a block's copies before it
    uses them, so S - 1 blocks are in flight: one at S = 2, as without pipelining (S = 1)."""
    return per_sm * block_m * max(1, stages - 1) * 2 * n * elem_bytes


def backward_in_flight(log=print) -> list:
    """Our backward in Liger's shape of work (one program per SM, one row per step, no pipelining,
    Liger's warps), then one knob stepped up at a time; Liger's own backward beside it."""
    import triton

    from qwen3_fusion.bench_norms import rmsnorm_inputs
    from qwen3_fusion.bench_sweep import time_with_config
    from qwen3_fusion.rmsnorm import rms_norm_forward, tile_config

    out = []
    for rows, n in (
        [(64, 1024), (64, 4096)] if bc.SMOKE else [(16384, n) for n in (1024, 2048, 4096)]
    ):
        x, w, dy = rmsnorm_inputs(rows, n, torch.bfloat16)
        rstd = rms_norm_forward(x, w, bc.EPS)[1]
        copy = bc.copy_same_size(x, 1.0, passes=3)["ms"]  # the backward's bytes: x, dy in, dx out
        base, lw = tile_config(n, torch.bfloat16, True), _liger_warps(n)
        configs = [
            ("ours, tile table", base.kwargs["BLOCK_M"], base.kwargs["PER_SM"], base.num_stages, base.num_warps),
            ("Liger's shape: 1 program/SM, 1 row, 1 stage", 1, 1, 1, lw),
            ("1 row, 2 stages", 1, 1, 2, lw),
            ("1 row, 3 stages", 1, 1, 3, lw),
            ("2 programs/SM, 1 row, 1 stage", 1, 2, 1, lw),
            ("4 rows, 1 stage", 4, 1, 1, lw),
        ]  # fmt: skip
        for label, m, per_sm, stages, warps in configs:
            cfg = triton.Config(
                {"BLOCK_M": m, "PER_SM": per_sm}, num_warps=warps, num_stages=stages
            )
            ms, _ = time_with_config("bwd", cfg, x, w, dy, rstd)
            out.append({"rows": rows, "n": n, "impl": "ours", "label": label, "BLOCK_M": m, "PER_SM": per_sm,
                        "num_stages": stages, "num_warps": warps, "ms": ms, "vs_copy": ms / copy,
                        "bytes_in_flight_per_sm": bytes_in_flight_per_sm(per_sm, m, stages, n), "copy_ms": copy})  # fmt: skip
            log(f"bwd {rows}x{n} {label:45s} {ms * 1e3:7.1f} us  {ms / copy:4.2f}x copy")
        for impl in () if bc.SMOKE else ("liger", "liger_inplace"):
            ms = _liger_bwd_ms(impl, x, w, dy)
            out.append({"rows": rows, "n": n, "impl": impl, "label": impl, "num_warps": lw,
                        "ms": ms, "vs_copy": ms / copy, "copy_ms": copy})  # fmt: skip
            log(f"bwd {rows}x{n} {impl:45s} {ms * 1e3:7.1f} us  {ms / copy:4.2f}x copy")
    return out


def gradient_errors(log=print) -> list:
    """Each parameter's gradient in bf16 (HF eager, ours, Liger) against the same model in fp32
    (same bf16 weights, TF32 off): Qwen3-0.6B cut to 2 layers, 2 x 1024 tokens."""
    from transformers import Qwen3ForCausalLM

    from qwen3_fusion import train_step as ts

    cfg = (
        dict(ts.SMOKE_CONFIG, seq=16)
        if bc.SMOKE
        else dict(ts.TRAIN_CONFIG, layers=2, batch=2, seq=1024)
    )
    state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        with torch.device(bc.DEVICE):
            ref = Qwen3ForCausalLM(ts.model_config(cfg)).float()
        ref.load_state_dict({k: v.float() for k, v in state.items()})
        loss32 = ref(input_ids=batch, labels=batch).loss
        loss32.backward()
        g32 = {k: p.grad.double() for k, p in ref.named_parameters()}
        del ref
        out = []
        for variant in ("hf", "ours_fwd_bwd") + (() if bc.SMOKE else ("liger",)):
            model = ts.build_variant(variant, state, ts.model_config(cfg))
            loss = model(input_ids=batch, labels=batch).loss
            loss.backward()
            for k, p in model.named_parameters():
                g = g32[k]
                out.append({"variant": variant, "param": k, "loss": loss.item(), "loss_fp32": loss32.item(),
                            "rel_err": float((p.grad.double() - g).norm() / g.norm()),
                            "bf16_rounding": float((g.to(torch.bfloat16).double() - g).norm() / g.norm())})  # fmt: skip
            log(f"grad {variant:14s} loss {loss.item():.4f} (fp32 {loss32.item():.4f})")
            del model
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    return out


def in_flight(log=print) -> dict:
    return {"backward_in_flight": backward_in_flight(log), "gradients": gradient_errors(log)}


def _gpu_ms_by_name(prof) -> tuple:
    """GPU time (ms) per kernel, memcpy or memset name in a torch.profiler run, and their (start, duration)
    spans; annotation rows (user ranges, Optimizer.*, ProfilerStep*) span other work and are left out."""
    import collections

    by_name, spans = collections.Counter(), []
    for e in prof.events():
        if (e.device_type.name != "CUDA" or getattr(e, "is_user_annotation", False)
                or e.name.startswith(("Optimizer.", "ProfilerStep"))):  # fmt: skip
            continue
        by_name[e.name] += (e.time_range.end - e.time_range.start) / 1e3
        spans.append((e.time_range.start, e.time_range.end - e.time_range.start))
    return by_name, spans


def profiled_step(model, batch, opt) -> dict:
    """One training step under torch.profiler, reusing `opt` (warmed: its state already exists, so the
    step launches no state-initialising kernels): kernels, GPU kernel ms, GPU busy ms (the union of kernel
    intervals), and ms per kernel class and per kernel name."""
    import collections

    from qwen3_fusion import train_step as ts
    from qwen3_fusion.bench_artifacts import _union_ms, kernel_class

    act = torch.profiler.ProfilerActivity.CPU if bc.SMOKE else torch.profiler.ProfilerActivity.CUDA
    with torch.profiler.profile(activities=[act]) as prof:
        ts.train_one_step(model, batch, opt)
        bc.sync()
    by_name, spans = _gpu_ms_by_name(prof)
    by_cls = collections.Counter()
    for name, ms in by_name.items():
        by_cls[kernel_class(name)] += ms
    return {"kernels": len(spans), "kernel_ms": sum(by_name.values()), "busy_ms": _union_ms(spans),
            "by_class_ms": dict(by_cls), "by_name_ms": dict(by_name)}  # fmt: skip


def by_class(log=print) -> dict:
    """GPU kernel time by class (bench_artifacts.kernel_class) of one profiled training step: HF eager,
    torch.compile, compile with sdpa on is_causal, Liger's full patch (FLCE chunk_mem_const 16), at
    both bench configs; every kernel's name and time is kept, so another classifier can be applied."""
    from qwen3_fusion import train_step as ts

    plan = ts.bench_configs()
    rows = []
    for key, cfg in plan.items():
        state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
        for variant in ("hf", "compile", "compile_causal") + (
            () if bc.SMOKE else ("liger_full_coarse",)
        ):
            torch._dynamo.reset()
            with ts.qwen3_globals_kept(), ts.flce_chunks_kept():
                model = ts.build_variant(variant, state, ts.model_config(cfg))
                _, _, opt = ts.run_steps(model, batch, 3)
                rows.append({"config": key, "variant": variant, **profiled_step(model, batch, opt)})
            r = rows[-1]
            log(f"{key} {variant:18s} {r['kernels']} kernels, {r['kernel_ms']:.1f} ms")
            del model, opt
            if not bc.SMOKE:
                torch.cuda.empty_cache()
    return {"rows": rows}


def _sdpa_fwd_bwd(q, k, v, dout, scale, kw):
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale, **kw)
    out.backward(dout)
    return out


def sdpa_mask(log=print) -> dict:
    """One layer's F.scaled_dot_product_attention, forward + backward, graph-timed at both step configs:
    with the contiguous (batch, 1, seq, seq) bool causal mask that transformers passes under torch.compile
    (k and v already repeated to every head, as its sdpa path does), and with is_causal=True and no mask.
    Two controls split the mask's cost: an all-True mask tensor (reads a mask, skips nothing) and no
    mask with is_causal=False (the same full attention without reading a mask). The attention kernels
    each form runs are recorded by name with their profiled time."""
    import functools

    from qwen3_fusion import train_step as ts
    from qwen3_fusion.bench_artifacts import kernel_class

    plan = ts.bench_configs()
    act = torch.profiler.ProfilerActivity.CPU if bc.SMOKE else torch.profiler.ProfilerActivity.CUDA
    rows = []
    for key, cfg in plan.items():
        b, h, s, d = cfg["batch"], cfg["heads"], cfg["seq"], cfg["head_dim"]
        gen = torch.Generator(device=bc.DEVICE).manual_seed(0)
        q, k, v, dout = (torch.randn(b, h, s, d, device=bc.DEVICE, dtype=torch.bfloat16, generator=gen)
                         for _ in range(4))  # fmt: skip
        q, k, v = (t.requires_grad_() for t in (q, k, v))
        causal = torch.ones(s, s, dtype=torch.bool, device=bc.DEVICE).tril()
        mask = causal.expand(b, 1, s, s).contiguous()  # materialized, as transformers passes it
        forms = {
            "mask": {"attn_mask": mask, "is_causal": False},
            "is_causal": {"attn_mask": None, "is_causal": True},
            "all_true": {"attn_mask": torch.ones_like(mask), "is_causal": False},
            "full": {"attn_mask": None, "is_causal": False},
        }
        outs = {}
        for form, kw in forms.items():
            step = functools.partial(_sdpa_fwd_bwd, q, k, v, dout, d**-0.5, kw)
            outs[form] = step().detach().float()
            q.grad = k.grad = v.grad = None
            ms = bc.graph_ms(step)
            with torch.profiler.profile(activities=[act]) as prof:
                step()
                bc.sync()
            by_name = _gpu_ms_by_name(prof)[0]
            kernels = {n: ms for n, ms in by_name.items() if kernel_class(n) == "attention"}
            rows.append({"config": key, "form": form, "batch": b, "heads": h, "seq": s, "head_dim": d,
                         "fwd_bwd_ms": ms, "attention_kernels_ms": dict(kernels)})  # fmt: skip
            log(f"{key} sdpa {form:9s} fwd+bwd {ms:.3f} ms, kernels {sorted(kernels)}")
            q.grad = k.grad = v.grad = None
        # the same math by two kernels: their outputs should differ only by rounding
        for a, b in (("mask", "is_causal"), ("all_true", "full")):
            diff = (outs[a] - outs[b]).abs().max().item()
            # the key predates the controls: for them, the diff to their twin form
            for r in rows[-len(forms) :]:
                if r["form"] in (a, b):
                    r["max_abs_diff_vs_mask"] = diff
        del q, k, v, dout, causal, mask, outs
        if not bc.SMOKE:
            torch.cuda.empty_cache()
    return {"rows": rows}


def _lazy_probe(module: str, name: str):
    """A probe in another qwen3_fusion module, imported only when it runs (some need transformers)."""

    def run(log=print) -> dict:
        import importlib

        return getattr(importlib.import_module(f"qwen3_fusion.{module}"), name)(log=log)

    return run


PROBES = {"multistage": multistage, "unseen": unseen, "casts": casts, "in_flight": in_flight,
          "by_class": by_class, "sdpa_mask": sdpa_mask,
          "bwd_split": _lazy_probe("bench_split", "bwd_split"), "qk_rope": _lazy_probe("bench_qk_rope", "qk_rope"),
          "atomic_dw": _lazy_probe("bench_atomic", "atomic_dw"),
          **{name: _lazy_probe("bench_steps", name) for name in ("liger_groups", "step_host", "triton_op")}}  # fmt: skip


def run_probe(name: str, meta: dict, out_dir: str, slug: str, log=print) -> str:
    """One probe into <out_dir>/<slug>_<file>.json, the run's meta first."""
    if bc.SMOKE:  # the CPU backend donates saved buffers; the timing loop retains the graph
        import torch._functorch.config as functorch_config

        functorch_config.donated_buffer = False
    res = {"meta": meta, **PROBES[name](log=log)}
    if not bc.SMOKE:
        torch.cuda.empty_cache()
    return bc.write_json(res, os.path.join(out_dir, f"{slug}_{PROBE_FILES[name]}.json"))
