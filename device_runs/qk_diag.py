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

out = {"meta": {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
                "date": time.strftime("%Y-%m-%d"), "command": "python device_runs/qk_diag.py"}}
dev = "cuda"


def dump():
    dump()

b, s, h, d = 4, 2048, 16, 128


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

# 2. backward variants
x, w, cos, sin = inputs(torch.bfloat16)
with torch.no_grad():
    y, rstd = q.qk_norm_rope_fwd_op(x, w, cos, sin, 1e-6)
dy_t = torch.randn(b, h, s, d, device=dev, dtype=x.dtype).transpose(1, 2)  # as the probe passes it
dy_c = dy_t.contiguous()
times = {}
times["bwd_op_transposed_dy"] = do_bench_cudagraph(lambda: q.qk_norm_rope_bwd_op(dy_t, x, w, cos, sin, rstd))
times["bwd_op_contiguous_dy"] = do_bench_cudagraph(lambda: q.qk_norm_rope_bwd_op(dy_c, x, w, cos, sin, rstd))
times["fwd_op"] = do_bench_cudagraph(lambda: q.qk_norm_rope_fwd_op(x, w, cos, sin, 1e-6))
times["copy_dy"] = do_bench_cudagraph(lambda: dy_t.contiguous())
rows = b * s * h
x2, dy2 = x.view(-1, d), dy_c.view(-1, d)
cos2 = cos.reshape(-1, d).contiguous()
sin2 = sin.reshape(-1, d).contiguous()
dx = torch.empty_like(x2)
y2 = torch.empty_like(x2)
r2 = torch.empty(rows, device=dev)
sweep = []
for bm in (1, 2, 4, 8, 16, 32, 64):
    for nw in (1, 2, 4, 8):
        progs = triton.cdiv(rows, bm)
        part = torch.empty(progs, d, device=dev)
        try:
            tb = do_bench_cudagraph(lambda: q._qk_norm_rope_bwd_kernel[(progs,)](
                dy2, x2, w, cos2, sin2, rstd, dx, part, rows, h, HALF=d // 2, BLOCK_M=bm, num_warps=nw))
            ts_ = do_bench_cudagraph(lambda: part.sum(0))
            tf = do_bench_cudagraph(lambda: q._qk_norm_rope_fwd_kernel[(progs,)](
                x2, w, cos2, sin2, y2, r2, rows, h, 1e-6, HALF=d // 2, BLOCK_M=bm, num_warps=nw))
        except Exception as e:  # noqa: BLE001
            tb = ts_ = tf = None
            print("fail", bm, nw, e, flush=True)
        sweep.append({"block_m": bm, "num_warps": nw, "bwd_kernel_ms": tb, "partial_sum_ms": ts_, "fwd_kernel_ms": tf})
        print(sweep[-1], flush=True)
out["times"] = times
out["sweep"] = sweep
print(times, flush=True)
dump()

# 3. compiled step at 0.6B
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
