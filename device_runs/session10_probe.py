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
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="triton_cache_"))  # fresh: PTX below

import torch  # noqa: E402

SMOKE = "--smoke" in sys.argv
from qwen3_fusion import bench_common as bc  # noqa: E402

if SMOKE:
    bc.use_smoke()
from qwen3_fusion import train_step as ts  # noqa: E402
from qwen3_fusion.bench_norms import make_norm, rmsnorm_inputs  # noqa: E402

# parts 1 and 2 now live in the package: python -m qwen3_fusion.bench --probe in_flight
from qwen3_fusion.bench_probes import backward_in_flight, gradient_errors  # noqa: E402

LIGER = not SMOKE


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
