"""Session 21 diagnostics for qwen3_fusion.qk_norm_rope on the GPU (one call, writes $OUT/qk_diag.json).

1. bitwise: where does the fused bf16 output differ from HF's?  norm alone (cos = 1, sin = 0), rstd against
   torch's, and the full op; and the fp16 rate (the interpreter matched fp16 bitwise).
2. backward: the op with a contiguous dy vs the transposed dy the probe passes (the .contiguous() copy),
   and BLOCK_M x num_warps for both kernels (CUDA-graph time).
3. the compiled step at 0.6B: compile_causal vs compile_causal_qk_rope, profiled (kernels, GPU ms, the top
   kernel names) and dynamo's graph-break counters.
"""
import json, os, sys, time
import torch, triton
from triton.testing import do_bench_cudagraph

from qwen3_fusion import qk_norm_rope as q
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm, apply_rotary_pos_emb

out = {"meta": {"gpu": "cpu" if os.environ.get("DIAG_SMOKE") else torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
                "date": time.strftime("%Y-%m-%d"), "command": "python device_runs/qk_diag.py"}}
SMOKE = bool(os.environ.get("DIAG_SMOKE"))  # CPU, interpreter, tiny shape: checks the script, times nothing
dev = "cpu" if SMOKE else "cuda"
b, s, h, d = (2, 8, 3, 16) if SMOKE else (4, 2048, 16, 128)
if SMOKE:
    def do_bench_cudagraph(f):
        f()
        return 0.0


def dump():
    json.dump(out, open(os.path.join(os.environ.get("OUT", "."), "qk_diag.json"), "w"), indent=1)


def inputs(dtype, seed=0):
    g = torch.Generator(device=dev).manual_seed(seed)
    x = torch.randn(b, s, h, d, device=dev, dtype=dtype, generator=g)
    w = (torch.rand(d, device=dev, generator=g) + 0.5).to(dtype)
    ang = torch.randn(b, s, d // 2, device=dev, generator=g) * 3
    emb = torch.cat([ang, ang], -1)
    return x, w, emb.cos().to(dtype), emb.sin().to(dtype)


def hf(x, w, cos, sin):
    norm = Qwen3RMSNorm(d).to(dev, x.dtype)
    with torch.no_grad():
        norm.weight.copy_(w)
        n = norm(x).transpose(1, 2)
        return n, apply_rotary_pos_emb(n, n, cos, sin)[0]


bit = {}
for dtype in (torch.bfloat16, torch.float16):
    x, w, cos, sin = inputs(dtype)
    n_ref, y_ref = hf(x, w, cos, sin)
    with torch.no_grad():
        y, rstd = q.qk_norm_rope_fwd_op(x, w, cos, sin, 1e-6)
        one, zero = torch.ones_like(cos), torch.zeros_like(sin)
        n_ours, _ = q.qk_norm_rope_fwd_op(x, w, one, zero, 1e-6)
        xf = x.float()
        rstd_ref = torch.rsqrt(xf.pow(2).mean(-1) + 1e-6).reshape(-1)
        # the same op on HF's own normed output: is RoPE alone exact?
        rope_on_ref = apply_rotary_pos_emb(n_ref, n_ref, cos, sin)[0]
    key = str(dtype).removeprefix("torch.")
    bit[key] = {
        "full": float((y.transpose(1, 2) == y_ref).float().mean()),
        "norm_only": float((n_ours.transpose(1, 2) == n_ref).float().mean()),
        "rstd_equal": float((rstd == rstd_ref).float().mean()),
        "rstd_max_rel": float(((rstd - rstd_ref).abs() / rstd_ref).max()),
        "full_max_abs": float((y.transpose(1, 2).float() - y_ref.float()).abs().max()),
    }
    print(key, bit[key], flush=True)
out["bitwise"] = bit
dump()

# 2. forward with FMA contraction on (Triton's default) vs off (the package), and the op timings
x, w, cos, sin = inputs(torch.bfloat16)
n_ref, y_ref = hf(x, w, cos, sin)
rows = b * s * h
cs, sn, cs_b, cs_s = q._cos_sin(cos, sin)
for fusion in (True, False):
    yk = torch.empty_like(x)
    rk = torch.empty(rows, device=dev)
    q._qk_norm_rope_fwd_kernel[(triton.cdiv(rows, q.BLOCK_M),)](
        x, w, cs, sn, yk, rk, *x.stride()[:3], cs_b, cs_s, rows, s, h, 1e-6,
        HALF=d // 2, BLOCK_M=q.BLOCK_M, enable_fp_fusion=fusion)
    out.setdefault("bitwise_fp_fusion", {})[str(fusion)] = float((yk.transpose(1, 2) == y_ref).float().mean())
print("fp fusion:", out["bitwise_fp_fusion"], flush=True)
with torch.no_grad():
    y, rstd = q.qk_norm_rope_fwd_op(x, w, cos, sin, 1e-6)
dy_t = torch.randn(b, h, s, d, device=dev, dtype=x.dtype).transpose(1, 2)  # as SDPA hands it back
dy_c = dy_t.contiguous()
times = {}
times["bwd_op_transposed_dy"] = do_bench_cudagraph(lambda: q.qk_norm_rope_bwd_op(dy_t, x, w, cos, sin, rstd))
times["bwd_op_contiguous_dy"] = do_bench_cudagraph(lambda: q.qk_norm_rope_bwd_op(dy_c, x, w, cos, sin, rstd))
times["fwd_op"] = do_bench_cudagraph(lambda: q.qk_norm_rope_fwd_op(x, w, cos, sin, 1e-6))
times["copy_dy"] = do_bench_cudagraph(lambda: dy_t.contiguous())
out["times"] = times
print(times, flush=True)
sweep = []
for bm in (16, 32):
    for nw in (4, 8):
        for per_sm in (4, 8):
            q.BWD_BLOCK_M, q.BWD_WARPS, q.BWD_PER_SM = bm, nw, per_sm
            try:
                tb = do_bench_cudagraph(lambda: q.qk_norm_rope_bwd_op(dy_t, x, w, cos, sin, rstd))
            except Exception as e:  # noqa: BLE001
                tb = None
                print("fail", bm, nw, per_sm, e, flush=True)
            sweep.append({"block_m": bm, "num_warps": nw, "per_sm": per_sm, "bwd_op_ms": tb})
q.BWD_BLOCK_M, q.BWD_WARPS, q.BWD_PER_SM = 16, 4, 4
sweep.sort(key=lambda r: r["bwd_op_ms"] or 1e9)
print("best bwd:", sweep[:5], flush=True)
fsweep = []
for bm in (2, 4, 8, 16, 32, 64):
    q.BLOCK_M = bm
    fsweep.append({"block_m": bm, "fwd_op_ms": do_bench_cudagraph(lambda: q.qk_norm_rope_fwd_op(x, w, cos, sin, 1e-6))})
q.BLOCK_M = 16
print("fwd:", fsweep, flush=True)
out["bwd_sweep"], out["fwd_sweep"] = sweep, fsweep
dump()

# 3. compiled step at 0.6B
if SMOKE or os.environ.get("DIAG_NO_STEPS"):
    sys.exit(0)
from qwen3_fusion import train_step as ts
from qwen3_fusion.bench_probes import profiled_step
from torch._dynamo.utils import counters

plan = ts.bench_configs()
steps = []
for key, cfg in plan.items():
    if "0.6b" not in key:
        continue
    state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
    for variant in ("compile_causal", "compile_causal_qk_rope"):
        torch._dynamo.reset()
        counters.clear()
        with ts.qwen3_globals_kept(), ts.flce_chunks_kept():
            model = ts.build_variant(variant, state, ts.model_config(cfg))
            _, _, opt = ts.run_steps(model, batch, 3)
            r = profiled_step(model, batch, opt)
        top = sorted(r["by_name_ms"].items(), key=lambda kv: -kv[1])[:25]
        steps.append({"config": key, "variant": variant, "kernels": r["kernels"], "kernel_ms": r["kernel_ms"],
                      "busy_ms": r["busy_ms"], "top": top,
                      "graph_breaks": dict(counters["graph_break"]), "unique_graphs": counters["stats"]["unique_graphs"]})
        print(key, variant, r["kernels"], r["kernel_ms"], r["busy_ms"], steps[-1]["graph_breaks"], steps[-1]["unique_graphs"], flush=True)
        del model, opt
        torch.cuda.empty_cache()
out["steps"] = steps
dump()
