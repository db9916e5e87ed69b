"""Tenth session: three questions the posts still answer by argument rather than by measurement.

1. Post 2 §5.6, why our RMSNorm backward beats Liger 0.8.5's. Our explanation is the bytes in flight
   per SM (programs x rows per step x stages). Test it: run OUR kernel with Liger's shape of work
   (one program per SM, one row per step, no pipelining, Liger's num_warps) and step the knobs back
   up one at a time; time Liger's own backward beside it (CUDA-graph replay, bf16, 16384 rows).
   If the Liger-shaped config of our kernel lands near Liger and the knobs recover the gap, the
   explanation holds. The PTX of each compiled backward is searched for cp.async (whether Triton
   pipelined the row loop's loads into shared memory).
2. Post 2 §6.3, gradients on the GPU: one backward of Qwen3-0.6B cut to 2 layers in bf16, HF eager,
   ours (fwd + bwd) and Liger's RMSNorm, each against the same model in fp32 (same bf16 weights,
   TF32 off): relative error of every parameter's gradient.
3. Post 1 §六, the host cost of Liger's 0.6B step: host microseconds per call of one ATen kernel,
   one bare Triton launch, and the RMSNorm modules; and how many of one Liger-full step's kernels
   are Triton launches.

Usage: python device_runs/session10_probe.py [--smoke] -> $OUT/h200_session10_probe.json
"""

import glob
import json
import os
import statistics
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="triton_cache_"))  # fresh: PTX below

import torch  # noqa: E402

SMOKE = "--smoke" in sys.argv
from qwen3_fusion import bench_common as bc  # noqa: E402

if SMOKE:
    bc.use_smoke()
from qwen3_fusion import train_step as ts  # noqa: E402
from qwen3_fusion.bench_norms import make_norm, rmsnorm_bytes, rmsnorm_inputs  # noqa: E402
from qwen3_fusion.bench_sweep import time_with_config  # noqa: E402

LIGER = not SMOKE


def liger_warps(n: int) -> int:
    """num_warps of Liger 0.8.5's calculate_settings for a row of n elements."""
    import triton

    b = triton.next_power_of_2(n)
    return 16 if b >= 8192 else 8 if b >= 2048 else 4


def backward_in_flight(log=print) -> list:
    """Part 1: our backward in Liger's shape of work, the knobs stepped up, and Liger itself."""
    import triton

    from qwen3_fusion.rmsnorm import rms_norm_forward, tile_config

    shapes = [(64, 1024), (64, 4096)] if SMOKE else [(16384, 1024), (16384, 2048), (16384, 4096)]
    rows_out = []
    for rows, n in shapes:
        x, w, dy = rmsnorm_inputs(rows, n, torch.bfloat16)
        rstd = rms_norm_forward(x, w, bc.EPS)[1]
        copy = bc.copy_same_size(x, 1.0, passes=3)["ms"]  # same bytes as the backward
        base = tile_config(n, torch.bfloat16, True)
        lw = liger_warps(n)
        configs = [
            ("ours, tile table", base.kwargs["BLOCK_M"], base.kwargs["PER_SM"], base.num_stages, base.num_warps),
            ("Liger's shape: 1 program/SM, 1 row, 1 stage", 1, 1, 1, lw),
            ("1 row, 2 stages", 1, 1, 2, lw),
            ("1 row, 3 stages", 1, 1, 3, lw),
            ("2 programs/SM, 1 row, 1 stage", 1, 2, 1, lw),
            ("4 rows, 1 stage", 4, 1, 1, lw),
        ]
        for label, m, per_sm, stages, warps in configs:
            cfg = triton.Config({"BLOCK_M": m, "PER_SM": per_sm}, num_warps=warps, num_stages=stages)
            try:
                ms, _ = time_with_config("bwd", cfg, x, w, dy, rstd)
            except Exception as exc:  # noqa: BLE001 - e.g. out of shared memory
                log(f"bwd {rows}x{n} {label} failed: {str(exc)[:200]}")
                continue
            in_flight = per_sm * m * stages * n * 2 * 2  # x and dy rows, bf16
            rows_out.append({"rows": rows, "n": n, "impl": "ours", "label": label, "BLOCK_M": m, "PER_SM": per_sm,
                             "num_stages": stages, "num_warps": warps, "bytes_in_flight_per_sm": in_flight,
                             "ms": ms, "vs_copy": ms / copy, "copy_ms": copy})  # fmt: skip
            log(f"bwd {rows}x{n} {label:45s} {ms * 1e3:7.1f} us  {ms / copy:4.2f}x copy")
        if LIGER:
            for impl in ("liger", "liger_inplace"):
                fn, weight = make_norm(impl, n, w)
                xg = x.detach().requires_grad_()
                side = torch.cuda.Stream()
                with torch.cuda.stream(side):
                    yg = fn(xg)
                bc.sync()
                g = dy.clone()
                grad = lambda: torch.autograd.grad(yg, (xg, weight), g, retain_graph=True)  # noqa: E731
                ms = bc.graph_ms(grad, 5, 25, stream=side)
                rows_out.append({"rows": rows, "n": n, "impl": impl, "label": impl, "num_warps": lw,
                                 "ms": ms, "vs_copy": ms / copy, "copy_ms": copy})  # fmt: skip
                log(f"bwd {rows}x{n} {impl:45s} {ms * 1e3:7.1f} us  {ms / copy:4.2f}x copy")
        del x, w, dy, rstd
    return rows_out


def ptx_pipelining() -> list:
    """cp.async and global-load counts in the PTX of every compiled RMSNorm backward kernel."""
    out = []
    for path in sorted(glob.glob(os.path.join(os.environ["TRITON_CACHE_DIR"], "*", "*.ptx"))):
        name = os.path.basename(path)[: -len(".ptx")]
        if "backward" not in name and "bwd" not in name:
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        meta = {}
        for j in glob.glob(os.path.join(os.path.dirname(path), "*.json")):
            try:
                m = json.load(open(j))
            except (OSError, ValueError):
                continue
            if isinstance(m, dict) and "num_stages" in m:
                meta = {k: m.get(k) for k in ("num_warps", "num_stages", "shared")}
        out.append({"kernel": name, **meta, "cp_async": text.count("cp.async.ca") + text.count("cp.async.cg"),
                    "ld_global": text.count("ld.global")})  # fmt: skip
    return out


def gradient_errors(log=print) -> list:
    """Part 2: per-parameter gradient error of bf16 variants against fp32, Qwen3-0.6B x 2 layers."""
    cfg = dict(ts.SMOKE_CONFIG if SMOKE else ts.TRAIN_CONFIG, layers=2, batch=2, seq=1024 if not SMOKE else 16)
    state = ts.reference_state(cfg)
    batch = ts.make_batch(cfg)
    from transformers import Qwen3ForCausalLM

    torch.backends.cuda.matmul.allow_tf32 = False
    with torch.device(bc.DEVICE):
        ref = Qwen3ForCausalLM(ts.model_config(cfg)).float()
    ref.load_state_dict({k: v.float() for k, v in state.items()})
    loss32 = ref(input_ids=batch, labels=batch).loss
    loss32.backward()
    g32 = {k: p.grad.double() for k, p in ref.named_parameters()}
    del ref
    out = []
    variants = ["hf", "ours_fwd_bwd"] + (["liger"] if LIGER else [])
    for variant in variants:
        model = ts.build_variant(variant, state, ts.model_config(cfg))
        loss = model(input_ids=batch, labels=batch).loss
        loss.backward()
        for k, p in model.named_parameters():
            ref_g = g32[k]
            err = float((p.grad.double() - ref_g).norm() / ref_g.norm())
            floor = float((ref_g.to(torch.bfloat16).double() - ref_g).norm() / ref_g.norm())  # bf16 rounding alone
            out.append({"variant": variant, "param": k, "rel_err": err, "bf16_rounding": floor,
                        "loss": loss.item(), "loss_fp32": loss32.item()})  # fmt: skip
        errs = [r["rel_err"] for r in out if r["variant"] == variant]
        log(f"grad {variant:14s} loss {loss.item():.4f} (fp32 {loss32.item():.4f}) rel err median "
            f"{statistics.median(errs):.2e} max {max(errs):.2e}")  # fmt: skip
        del model
        if not SMOKE:
            torch.cuda.empty_cache()
    return out


def host_costs(log=print) -> dict:
    """Part 3: host us per call (bc.host_us, 300 calls back to back) and kernels per call."""
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=offs < n) + tl.load(b_ptr + offs, mask=offs < n), mask=offs < n)

    n = 1024
    x, w, _ = rmsnorm_inputs(64, n, torch.bfloat16)
    a, b = x.reshape(-1), x.reshape(-1).clone()
    c = torch.empty_like(a)
    grid = (triton.cdiv(a.numel(), 1024),)
    calls = {
        "aten add": lambda: torch.add(a, b),
        "triton add_kernel": lambda: add_kernel[grid](a, b, c, a.numel(), BLOCK=1024),
    }
    for impl in ("hf_eager", "ours") + (("liger",) if LIGER else ()):
        fn, _ = make_norm(impl, n, w)
        calls[f"{impl} RMSNorm forward"] = lambda f=fn: f(x)
    rows = []
    with torch.no_grad():
        for label, f in calls.items():
            us = bc.host_us(f, 5 if SMOKE else 300)
            kernels = 0
            if not SMOKE:
                with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                    f()
                    torch.cuda.synchronize()
                kernels = sum(1 for e in prof.events() if e.device_type.name == "CUDA")
            rows.append({"call": label, "host_us": us, "kernels": kernels})
            log(f"host {label:28s} {us:7.1f} us/call, {kernels} kernels")
    return {"rows": rows}


def liger_step_kernels(log=print) -> dict:
    """Part 3b: one Liger-full (FLCE chunk_mem_const 16) step of 0.6B x 8 layers, 4 x 2048: kernels
    launched by Triton (plain identifiers) vs by ATen and the libraries."""
    if not LIGER:
        return {}
    cfg = ts.TRAIN_CONFIG
    state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
    with ts.qwen3_globals_kept(), ts.flce_chunks_kept():
        model = ts.build_variant("liger_full_coarse", state, ts.model_config(cfg))
        ts.run_steps(model, batch, 3)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            model(input_ids=batch, labels=batch).loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type.name == "CUDA"
             and not getattr(e, "is_user_annotation", False) and not e.name.startswith(("Optimizer.", "ProfilerStep"))]  # fmt: skip
    library = ("void ", "at::", "nvjet", "cutlass", "gemm", "flash", "fmha", "cudnn", "Memcpy", "Memset", "sm90", "cublas")
    triton_names = [nm for nm in names if not any(t in nm for t in library) and " " not in nm]
    counts = {}
    for nm in triton_names:
        counts[nm] = counts.get(nm, 0) + 1
    log(f"liger_full_coarse step: {len(names)} kernels, {len(triton_names)} Triton: {sorted(counts.items())[:12]}")
    del model
    torch.cuda.empty_cache()
    return {"kernels": len(names), "triton_kernels": len(triton_names), "triton_by_name": counts}


def main() -> int:
    out = {"meta": bc.environment("python device_runs/session10_probe.py"),
           "note": "our RMSNorm backward in Liger's shape of work vs Liger; bf16 gradient errors vs fp32; host us per call"}  # fmt: skip
    for key, fn in (("backward_in_flight", backward_in_flight), ("gradients", gradient_errors),
                    ("host", host_costs), ("liger_step", liger_step_kernels)):  # fmt: skip
        try:
            out[key] = fn()
        except Exception as exc:  # noqa: BLE001 - keep the other parts
            import traceback

            traceback.print_exc()
            out[key] = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        bc.write_json(out, os.path.join(os.environ.get("OUT", "/tmp"), "h200_session10_probe.json"))
    out["ptx"] = ptx_pipelining()
    for r in out["ptx"]:
        print("ptx", r, flush=True)
    path = bc.write_json(out, os.path.join(os.environ.get("OUT", "/tmp"), "h200_session10_probe.json"))
    print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
