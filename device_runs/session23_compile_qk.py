"""Session 23: why compile_causal_qk_rope ran 42-49 ms on the H200 (compile_causal: 34.6 ms), where the H100 had
it 2% faster than compile_causal. One process, qwen3_0.6b_8l: compile_causal_qk_rope with the shipped launch
configs, compile_causal, then compile_causal_qk_rope with the pre-sweep configs; per variant every step's time,
the host's time to issue a step, and a profiler table over three steps.
Usage (device): python device_runs/session23_compile_qk.py OUT_DIR    (CPU check: add --smoke)
"""
import sys

import torch

from qwen3_fusion import bench_common as bc
from qwen3_fusion import qk_norm_rope as q
from qwen3_fusion import train_step as ts

out = sys.argv[1]
if "--smoke" in sys.argv:
    bc.use_smoke()
cfg = ts.SMOKE_CONFIG if bc.SMOKE else dict(ts.TRAIN_CONFIGS["qwen3_0.6b_8l"])
steps = 3 if bc.SMOKE else 25
CONFIGS = {"shipped": (8, 32, 4, 8), "pre_sweep": (16, 16, 4, 4)}  # fwd BLOCK_M; bwd BLOCK_M, warps, per SM
log = open(f"{out}/compile_qk_diag.txt", "w")


def say(*a):
    print(*a, file=log, flush=True)
    print(*a, flush=True)


say(torch.__version__, torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu")
batch = ts.make_batch(cfg)
for variant, conf in (("compile_causal_qk_rope", "shipped"), ("compile_causal", "shipped"),
                      ("compile_causal_qk_rope", "pre_sweep")):  # the last only if time is left
    q.BLOCK_M, q.BWD_BLOCK_M, q.BWD_WARPS, q.BWD_PER_SM = CONFIGS[conf]
    torch._dynamo.reset()
    torch.manual_seed(cfg["seed"])
    with ts.qwen3_globals_kept():
        model = ts.build_variant(variant, None, ts.model_config(cfg))
        times, losses, opt = ts.run_steps(model, batch, steps)
        later = sorted(times[3:] or times)
        host = ts.host_issue_ms(model, batch, opt)
        say(f"{variant} {conf}: median {later[len(later) // 2]:.1f} ms; steps {[round(t, 1) for t in times]}; "
            f"host issue {[round(h, 1) for h in host]} ms; loss0 {losses[0]:.4f}")
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
