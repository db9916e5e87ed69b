# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""A Qwen3 training step with random weights: the model both posts time and profile.

`python -m qwen3_fusion.train_step --config qwen3_0.6b_8l --variant hf --steps 20` runs that
many steps (forward, backward, fused AdamW) and prints the median step time; `--nvtx` wraps each
step in an NVTX range for `nsys profile`, and `TORCH_LOGS=output_code` with `--variant compile`
prints the code Inductor writes. The bench's training section calls `train_table`.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "CLI_VARIANTS",
    "FLCE_CHUNK_MEM_CONST",
    "HOST_SAMPLES",
    "SMOKE_CONFIG",
    "TRAIN_CONFIG",
    "TRAIN_CONFIGS",
    "TRAIN_CONFIG_1P7B",
    "TRAIN_VARIANTS",
    "bench_configs",
    "build_variant",
    "causal_sdpa",
    "flce_chunks_kept",
    "force_flce_chunk_mem_const",
    "host_issue_ms",
    "main",
    "make_batch",
    "model_config",
    "qwen3_globals_kept",
    "reference_state",
    "run_steps",
    "train_one_step",
    "train_step_bench",
    "train_table",
]


# %% src_literate/post2_triton_rmsnorm.pmd::train_step_head
import argparse
import contextlib
import copy
import functools
import sys
import time

import torch

from qwen3_fusion import bench_common as bc

# Qwen3-0.6B shapes cut to 8 layers, batch 4 x 2048; Qwen3-1.7B shapes cut to 6 layers, 2 x 4096
TRAIN_CONFIG = {
    "layers": 8, "hidden": 1024, "heads": 16, "kv_heads": 8, "head_dim": 128,
    "intermediate": 3072, "vocab": 151936, "tied_embeddings": True, "batch": 4, "seq": 2048,
    "dtype": "bfloat16", "optimizer": "AdamW(fused=True, lr=1e-5)", "attention": "sdpa",
    "warmup_steps": 3, "timed_steps": 15, "seed": 0,
}  # fmt: skip
TRAIN_CONFIG_1P7B = dict(TRAIN_CONFIG, layers=6, hidden=2048, intermediate=6144, batch=2, seq=4096)
TRAIN_CONFIGS = {"qwen3_0.6b_8l": TRAIN_CONFIG, "qwen3_1.7b_6l": TRAIN_CONFIG_1P7B}
SMOKE_CONFIG = dict(TRAIN_CONFIG, layers=2, hidden=64, heads=4, kv_heads=2, head_dim=16,
                    intermediate=128, vocab=256, batch=2, seq=16, warmup_steps=1, timed_steps=2)  # fmt: skip
TRAIN_VARIANTS = ["hf", "ours_fwd", "ours_fwd_bwd", "liger", "liger_inplace", "liger_full", "compile",
                  "compile_ours", "compile_causal", "flce", "compile_causal_flce"]  # fmt: skip
# two more Liger setups for the command line (not in the bench's run): RoPE + RMSNorm + SwiGLU without
# FLCE, and Liger's full patch with FLCE at the coarser chunk_mem_const below
CLI_VARIANTS = [*TRAIN_VARIANTS, "liger_no_flce", "liger_full_coarse", "compile_ro",
                "qk_rope", "compile_causal_qk_rope", "qk_sep"]  # fmt: skip
# Liger's chunk_mem_const for the flce variants: 0.8.5's Qwen3 lce_forward leaves it at 1 (post 1 §5.6)
FLCE_CHUNK_MEM_CONST = 16
HOST_SAMPLES = 5


def model_config(cfg: dict):
    """The Qwen3Config of a training config (sdpa attention, random weights)."""
    from transformers import Qwen3Config

    c = Qwen3Config(
        vocab_size=cfg["vocab"], hidden_size=cfg["hidden"], intermediate_size=cfg["intermediate"],
        num_hidden_layers=cfg["layers"], num_attention_heads=cfg["heads"],
        num_key_value_heads=cfg["kv_heads"], head_dim=cfg["head_dim"],
        tie_word_embeddings=cfg["tied_embeddings"], max_position_embeddings=max(cfg["seq"], 4096),
    )  # fmt: skip
    c._attn_implementation = cfg["attention"]
    return c


def causal_sdpa(model) -> None:
    """Make `model`'s sdpa apply causality itself (is_causal=True, no mask tensor), under
    torch.compile too: while Dynamo traces, transformers cannot rule out packed sequences from
    position_ids (5.17 also refuses the skip whenever it traces) and builds an explicit causal
    mask, and sdpa with a mask tensor runs slower (post 1 §六). Valid only for batches without
    padding or packing: the mask function returns None."""
    from transformers import AttentionInterface
    from transformers.integrations.sdpa_attention import sdpa_attention_forward
    from transformers.masking_utils import AttentionMaskInterface

    AttentionInterface.register("sdpa_causal", sdpa_attention_forward)
    AttentionMaskInterface.register("sdpa_causal", _no_mask)
    model.set_attn_implementation("sdpa_causal")


def _no_mask(*args, attention_mask=None, **kwargs):
    """causal_sdpa's mask function: no mask tensor; a padded batch is refused, not silently unmasked."""
    if attention_mask is not None and not bool(attention_mask.all()):
        raise ValueError("sdpa_causal cannot mask padding: use the plain sdpa implementation")
    return None


def build_variant(variant: str, state, config, chunk_mem_const: int = FLCE_CHUNK_MEM_CONST):
    """A bf16 Qwen3ForCausalLM with the given weights (or fresh seeded ones), RMSNorm per variant:
    hf; ours_fwd (our forward, PyTorch backward); ours_fwd_bwd; liger / liger_inplace (LigerRMSNorm
    with in_place False / True, Liger's default; class swap before build); liger_full (Liger's
    `apply_liger_kernel_to_qwen3` with its defaults: RoPE, SwiGLU, RMSNorm and the fused linear
    cross-entropy; it rebinds modeling_qwen3's globals, so call it inside `qwen3_globals_kept()`);
    compile (torch.compile of hf); compile_ours (torch.compile with our norm as an opaque op);
    compile_causal (torch.compile of hf with `causal_sdpa`: no mask tensor for sdpa); flce (Liger's
    fused linear cross-entropy for lm_head + loss, the rest HF eager); compile_causal_flce (the
    decoder compiled in place with `causal_sdpa`, the loss left to FLCE); liger_no_flce (Liger's
    RoPE, RMSNorm and SwiGLU, HF's loss); liger_full_coarse (liger_full with FLCE's chunk_mem_const);
    compile_ro (torch.compile with mode="reduce-overhead": the compiled forward and backward replayed
    as CUDA graphs, the optimizer eager; command line only); qk_rope / compile_causal_qk_rope (q_norm,
    k_norm and RoPE as qwen3_fusion.qk_norm_rope's fused kernels, eager / compiled with causal_sdpa;
    command line only; timed in h100_qk_rope_steps.json); qk_sep (their control: Liger's RoPE and
    Liger's RMSNorm on q_norm and k_norm only, one kernel per op, as Liger's full patch swaps them).
    The flce variants and liger_full_coarse run with `chunk_mem_const` (Liger's default is 1) until
    `flce_chunks_kept()` exits."""
    from transformers import Qwen3ForCausalLM
    from transformers.models.qwen3 import modeling_qwen3

    if variant.startswith("compile_causal"):  # causal_sdpa sets the config's attention
        config = copy.deepcopy(config)
    original = modeling_qwen3.Qwen3RMSNorm
    # liger / liger_inplace: a class swap affects every later build, so it is undone at once
    if variant in ("liger", "liger_inplace"):
        from qwen3_fusion.bench_norms import liger_rmsnorm_class

        modeling_qwen3.Qwen3RMSNorm = liger_rmsnorm_class(in_place=variant == "liger_inplace")
    try:
        with torch.device(bc.DEVICE):
            model = Qwen3ForCausalLM(config).to(torch.bfloat16)
    finally:
        modeling_qwen3.Qwen3RMSNorm = original
    if state is not None:
        model.load_state_dict(state)
    if variant in ("ours_fwd", "ours_fwd_bwd", "compile_ours"):
        from qwen3_fusion.patching import patch_qwen3_rmsnorm

        patch_qwen3_rmsnorm(model, backward="torch" if variant == "ours_fwd" else "triton")
    if variant in ("qk_rope", "compile_causal_qk_rope"):
        from qwen3_fusion.patching import patch_qwen3_qk_norm_rope

        patch_qwen3_qk_norm_rope(model)
    if variant == "qk_sep":
        from liger_kernel.transformers import apply_liger_kernel_to_qwen3
        from liger_kernel.transformers.monkey_patch import _patch_rms_norm_module

        # RoPE rebinds modeling_qwen3's global; the q/k norms patched as Liger's full patch does
        apply_liger_kernel_to_qwen3(rms_norm=False, swiglu=False, fused_linear_cross_entropy=False,
                                    model=model)  # fmt: skip
        for module in model.modules():
            if type(module).__name__ == "Qwen3Attention":
                _patch_rms_norm_module(module.q_norm)
                _patch_rms_norm_module(module.k_norm)
    if variant in ("liger_full", "liger_no_flce", "liger_full_coarse"):
        from liger_kernel.transformers import apply_liger_kernel_to_qwen3

        if variant == "liger_full_coarse":
            force_flce_chunk_mem_const(chunk_mem_const)
        no_flce = {"fused_linear_cross_entropy": False} if variant == "liger_no_flce" else {}
        apply_liger_kernel_to_qwen3(model=model, **no_flce)
    if variant.startswith("compile_causal"):
        causal_sdpa(model)
    model.train()
    if variant in ("flce", "compile_causal_flce"):
        from liger_kernel.transformers import apply_liger_kernel_to_qwen3

        force_flce_chunk_mem_const(chunk_mem_const)
        apply_liger_kernel_to_qwen3(rope=False, rms_norm=False, swiglu=False, fused_linear_cross_entropy=True,
                                    model=model)  # fmt: skip
        if variant == "compile_causal_flce":
            model.model.compile()  # the decoder; FLCE's .item() would break the graph of the whole
        return model
    if variant == "compile_ro":
        # CUDA graphs of the compiled forward and backward, the optimizer eager; run_steps marks
        # each step and copies its loss out of the graphs' memory
        compiled = torch.compile(model, mode="reduce-overhead")
        compiled.cudagraph_steps = True
        return compiled
    return torch.compile(model) if variant.startswith("compile") else model


def force_flce_chunk_mem_const(const: int) -> None:
    """Make Liger's FLCE use `const` as chunk_mem_const: Qwen3's lce_forward passes none, so the
    ops function it calls by its module-global name is wrapped. Undone by `flce_chunks_kept()`."""
    import liger_kernel.ops.fused_linear_cross_entropy as flce

    current = flce.fused_linear_cross_entropy_forward
    original = getattr(current, "__wrapped__", current)  # Liger's own, not an earlier wrapper

    @functools.wraps(original)
    def forced(*args, **kwargs):
        kwargs["chunk_mem_const"] = const
        return original(*args, **kwargs)

    flce.fused_linear_cross_entropy_forward = forced


@contextlib.contextmanager
def flce_chunks_kept():
    """Put Liger's FLCE forward back on exit (when liger-kernel is installed)."""
    try:
        import liger_kernel.ops.fused_linear_cross_entropy as flce
    except ImportError:
        yield
        return
    saved = flce.fused_linear_cross_entropy_forward
    try:
        yield
    finally:
        flce.fused_linear_cross_entropy_forward = saved


# %% src_literate/post2_triton_rmsnorm.pmd::train_step_make_batch
def bench_configs() -> dict:
    """The training configs the step benches run: both of TRAIN_CONFIGS, or the tiny one under --smoke."""
    return {"smoke": SMOKE_CONFIG} if bc.SMOKE else TRAIN_CONFIGS


def make_batch(cfg: dict):
    g = torch.Generator(device=bc.DEVICE).manual_seed(cfg["seed"])
    return torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), device=bc.DEVICE, generator=g)


def train_one_step(model, batch, opt):
    """Forward, backward, optimizer step and zero_grad, never waiting on the device -> the loss."""
    if getattr(model, "cudagraph_steps", False):
        torch.compiler.cudagraph_mark_step_begin()  # CUDA-graph trees reuse the last step's outputs
    loss = model(input_ids=batch, labels=batch).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss


def run_steps(model, batch, steps: int, nvtx: bool = False):
    """steps training steps, never waiting on the device in between -> (ms per step, losses,
    optimizer); on a GPU each step is timed by device events around it."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=not bc.SMOKE)
    marks, losses = [], []
    graphs = getattr(model, "cudagraph_steps", False)
    for i in range(steps):
        if nvtx:
            torch.cuda.nvtx.range_push(f"step {i}")
        marks.append(_mark())
        loss = train_one_step(model, batch, opt)
        losses.append(loss.detach().clone() if graphs else loss.detach())
        if nvtx:
            torch.cuda.nvtx.range_pop()
    marks.append(_mark())
    bc.sync()
    ms = [_elapsed_ms(a, b) for a, b in zip(marks[:-1], marks[1:], strict=True)]
    return ms, [float(v) for v in losses], opt


def _mark():
    if bc.SMOKE:
        return time.perf_counter()
    e = torch.cuda.Event(enable_timing=True)
    e.record()
    return e


def _elapsed_ms(a, b) -> float:
    return (b - a) * 1e3 if bc.SMOKE else a.elapsed_time(b)


@contextlib.contextmanager
def qwen3_globals_kept():
    """Put modeling_qwen3's module globals back on exit: Liger's patch rebinds them (RoPE, the
    norm and MLP classes), and the attention code reads them at call time, so a later variant
    would silently run Liger's kernels."""
    from transformers.models.qwen3 import modeling_qwen3

    saved = dict(vars(modeling_qwen3))
    try:
        yield
    finally:
        for name in [k for k in vars(modeling_qwen3) if k not in saved]:
            delattr(modeling_qwen3, name)
        for name, value in saved.items():
            if vars(modeling_qwen3).get(name) is not value:
                setattr(modeling_qwen3, name, value)


def host_issue_ms(model, batch, opt) -> list:
    """The host's time (ms) to issue one training step, from an idle device until the Python call
    returns, HOST_SAMPLES times (take the median: one sample swings with the host's scheduling)."""
    host = []
    for _ in range(HOST_SAMPLES):
        bc.sync()
        t = time.perf_counter()
        train_one_step(model, batch, opt)
        host.append((time.perf_counter() - t) * 1e3)
    bc.sync()
    return host


def train_step_bench(variant: str, state, batch, cfg: dict) -> dict:
    """Median step time of one variant (device events between steps), tokens/s, peak memory,
    host time to issue a step, and the first three losses."""
    with qwen3_globals_kept(), flce_chunks_kept():
        return _train_step_bench(variant, state, batch, cfg)


def _train_step_bench(variant: str, state, batch, cfg: dict) -> dict:
    if not bc.SMOKE:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    model = build_variant(variant, state, model_config(cfg))
    warm, losses, warm_opt = run_steps(model, batch, cfg["warmup_steps"])
    del warm_opt  # one AdamW state at a time, as in training: else the peak counts two
    setup_s = time.perf_counter() - t0  # build + compile + warm-up steps
    timed, more, opt = run_steps(model, batch, cfg["timed_steps"])
    ms = sorted(timed)[len(timed) // 2]
    host = host_issue_ms(model, batch, opt)
    host_ms = sorted(host)[len(host) // 2]
    peak = 0.0 if bc.SMOKE else torch.cuda.max_memory_allocated() / 1e9
    losses += more
    out = {"variant": variant, "step_ms": ms, "tokens_per_s": batch.numel() / ms * 1e3,
           "peak_gb": peak, "host_issue_ms": host_ms, "host_issue_ms_samples": host,
           "setup_s": setup_s,
           "losses_first3": losses[:3], "loss_last": losses[-1]}  # fmt: skip
    del model, opt
    torch._dynamo.reset()
    if not bc.SMOKE:
        torch.cuda.empty_cache()
    return out


# %% src_literate/post2_triton_rmsnorm.pmd::train_step_train_table
def reference_state(cfg: dict) -> dict:
    """The seeded bf16 weights every variant of `cfg` starts from (a state dict on the bench device)."""
    torch.manual_seed(cfg["seed"])
    with torch.device(bc.DEVICE):
        from transformers import Qwen3ForCausalLM

        ref = Qwen3ForCausalLM(model_config(cfg)).to(torch.bfloat16)
    return {k: v.detach().clone() for k, v in ref.state_dict().items()}


def train_table(variants, cfg: dict, log=print) -> list[dict]:
    """All variants from the same seeded weights and tokens; speed-up relative to 'hf'."""
    state = reference_state(cfg)
    batch = make_batch(cfg)
    out = []
    for v in variants:
        try:
            out.append(train_step_bench(v, state, batch, cfg))
            log(f"train {v}: {out[-1]['step_ms']:.1f} ms (setup {out[-1]['setup_s']:.0f} s)")
        except Exception as exc:  # noqa: BLE001 - one variant must not stop the others
            log(f"train {v} failed: {type(exc).__name__}: {str(exc)[:300]}")
            torch._dynamo.reset()
    base = next((r["step_ms"] for r in out if r["variant"] == "hf"), None)
    for r in out:
        r["speedup"] = base / r["step_ms"] if base else None
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m qwen3_fusion.train_step",
        description="Run Qwen3 training steps (random weights) on a GPU.",
    )
    p.add_argument("--config", choices=sorted(TRAIN_CONFIGS), default="qwen3_0.6b_8l")
    p.add_argument("--variant", choices=CLI_VARIANTS, default="hf")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--nvtx", action="store_true", help="one NVTX range per step (for nsys)")
    p.add_argument("--chunk-mem-const", type=int, default=FLCE_CHUNK_MEM_CONST, metavar="C",
                   help="Liger FLCE's chunk_mem_const for flce, compile_causal_flce and liger_full_coarse (Liger's own default: 1)")  # fmt: skip
    p.add_argument("--batch", type=int, help="sequences per step (default: the config's)")
    p.add_argument("--seq", type=int, help="tokens per sequence (default: the config's)")
    args = p.parse_args(argv)
    if args.chunk_mem_const < 1:
        p.error(f"--chunk-mem-const must be a positive integer, got {args.chunk_mem_const}")
    for name in ("batch", "seq"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            p.error(f"--{name} must be a positive integer, got {getattr(args, name)}")
    if not torch.cuda.is_available():
        print("qwen3_fusion.train_step needs a CUDA GPU", file=sys.stderr)
        return 3
    cfg = dict(TRAIN_CONFIGS[args.config])
    cfg.update({k: v for k in ("batch", "seq") if (v := getattr(args, k)) is not None})
    torch.manual_seed(cfg["seed"])
    model = build_variant(args.variant, None, model_config(cfg), args.chunk_mem_const)
    times, losses, _ = run_steps(model, make_batch(cfg), args.steps, args.nvtx)
    later = sorted(times[3:] or times)
    print(
        f"{args.config} {cfg['batch']}x{cfg['seq']} {args.variant}: median step {later[len(later) // 2]:.1f} ms over "
        f"{len(later)} steps after warm-up; peak memory {torch.cuda.max_memory_allocated() / 1e9:.1f} GB; "
        f"first loss {losses[0]:.4f}"
    )
    return 0


if __name__ == "__main__" and globals().get("__file__", "").endswith("train_step.py"):
    sys.exit(main())
