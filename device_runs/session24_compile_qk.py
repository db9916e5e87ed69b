"""Session 24: why compile_causal_qk_rope ran 42-49 ms on the H200 in session 23 (compile_causal: 34.6 ms), where
the H100 had it 2% faster than compile_causal. One process, qwen3_0.6b_8l, in this order:
  1. the q/k ops' host time per call (forward op, and forward + backward through autograd), with the cached
     launcher (qwen3_fusion.launcher, now used by qk_norm_rope) and with Triton's own launch;
  2. compile_causal_qk_rope (cached launch, shipped configs), compile_causal, compile_causal_qk_rope with
     Triton's own launch, then with the pre-sweep configs: every step's time, the host's time to issue a step,
     and a profiler table over three steps.
Writes OUT_DIR/<gpu>_qk_compile_diag.json (meta: GPU, versions, date, command) and compile_qk_diag.txt.
Usage (device): python device_runs/session24_compile_qk.py OUT_DIR    (CPU check: add --smoke)
"""
import sys

import torch

from qwen3_fusion import bench_common as bc
from qwen3_fusion import launcher
from qwen3_fusion import qk_norm_rope as q
from qwen3_fusion import train_step as ts

out = sys.argv[1]
if "--smoke" in sys.argv:
    bc.use_smoke()
cfg = ts.SMOKE_CONFIG if bc.SMOKE else dict(ts.TRAIN_CONFIGS["qwen3_0.6b_8l"])
steps = 3 if bc.SMOKE else 25
CONFIGS = {"shipped": (8, 32, 4, 8), "pre_sweep": (16, 16, 4, 4)}  # fwd BLOCK_M; bwd BLOCK_M, warps, per SM
FAST = launcher._FAST  # False in the interpreter
log = open(f"{out}/compile_qk_diag.txt", "w")
res = {"meta": bc.environment("python device_runs/session24_compile_qk.py OUT_DIR"), "op_host_us": [], "steps": []}


def say(*a):
    print(*a, file=log, flush=True)
    print(*a, flush=True)


say(res["meta"])
# 1. the op alone, q of one 0.6B layer (batch x seq x 16 heads x 128), bf16
b, s = (1, 16) if bc.SMOKE else (cfg["batch"], cfg["seq"])
h, d = (2, 16) if bc.SMOKE else (16, 128)
dt = torch.float32 if bc.SMOKE else torch.bfloat16
x = torch.randn(b, s, h, d, device=bc.DEVICE, dtype=dt)
w = torch.rand(d, device=bc.DEVICE, dtype=dt) + 0.5
ang = torch.randn(1, s, d // 2, device=bc.DEVICE)
emb = torch.cat([ang, ang], -1)
cos, sin = emb.cos().to(dt), emb.sin().to(dt)
xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
dy = torch.randn(b, h, s, d, device=bc.DEVICE, dtype=dt).transpose(1, 2)


def fwd():
    q.qk_norm_rope_fwd_op(x, w, cos, sin, 1e-6)


def fwd_bwd():
    q.qk_norm_rope(xg, wg, cos, sin, 1e-6).backward(dy)
    xg.grad = wg.grad = None


for fast in (FAST, False) if FAST else (False,):
    launcher._FAST = fast
    for name, fn in (("fwd_op", fwd), ("fwd_bwd_autograd", fwd_bwd)):
        us = bc.host_us(fn, 20 if bc.SMOKE else 300)
        res["op_host_us"].append({"launch": "cached" if fast else "triton", "call": name, "us": us})
        say(f"op {name} launch={'cached' if fast else 'triton'}: {us:.1f} us host per call")
launcher._FAST = FAST

# 2. whole compiled steps
runs = [("compile_causal_qk_rope", "shipped", FAST), ("compile_causal", "shipped", FAST),
        ("compile_causal_qk_rope", "shipped", False), ("compile_causal_qk_rope", "pre_sweep", FAST)]  # fmt: skip
for variant, conf, fast in runs:
    q.BLOCK_M, q.BWD_BLOCK_M, q.BWD_WARPS, q.BWD_PER_SM = CONFIGS[conf]
    launcher._FAST = fast
    torch._dynamo.reset()
    torch.manual_seed(cfg["seed"])
    with ts.qwen3_globals_kept():
        model = ts.build_variant(variant, None, ts.model_config(cfg))
        times, losses, opt = ts.run_steps(model, batch := ts.make_batch(cfg), steps)
        later = sorted(times[3:] or times)
        host = ts.host_issue_ms(model, batch, opt)
        row = {"config": "smoke" if bc.SMOKE else "qwen3_0.6b_8l", "variant": variant, "launch_configs": conf,
               "launch": "cached" if fast else "triton", "median_step_ms": later[len(later) // 2],
               "step_ms": times, "host_issue_ms": sorted(host)[len(host) // 2], "host_issue_ms_samples": host,
               "loss0": float(losses[0])}  # fmt: skip
        res["steps"].append(row)
        say(f"{variant} {conf} launch={row['launch']}: median {row['median_step_ms']:.1f} ms; "
            f"steps {[round(t, 1) for t in times]}; host issue {[round(t, 1) for t in host]} ms; loss0 {row['loss0']:.4f}")
        acts = [torch.profiler.ProfilerActivity.CPU] + ([] if bc.SMOKE else [torch.profiler.ProfilerActivity.CUDA])
        with torch.profiler.profile(activities=acts) as prof:
            for _ in range(3):
                ts.train_one_step(model, batch, opt)
            bc.sync()
        key = "cpu_time_total" if bc.SMOKE else "device_time_total"
        say(prof.key_averages().table(sort_by=key, row_limit=25, max_name_column_width=70))
        del model, opt
    if not bc.SMOKE:
        torch.cuda.empty_cache()
    bc.write_json(res, f"{out}/{bc.gpu_slug(res['meta']['gpu'])}_qk_compile_diag.json")  # what finished survives a timeout
launcher._FAST = FAST
say("done")
