"""Session 24: the compiled step with qk_norm_rope runs ~42 compiled graphs a step on the GPU (one without it);
torch._dynamo.explain on the patched 0.6B x 8 model names the graph breaks. Usage: python device_runs/session24_breaks.py
(CPU check: --smoke)."""
import sys

import torch

from qwen3_fusion import bench_common as bc
from qwen3_fusion import train_step as ts

if "--smoke" in sys.argv:
    bc.use_smoke()
cfg = ts.SMOKE_CONFIG if bc.SMOKE else dict(ts.TRAIN_CONFIGS["qwen3_0.6b_8l"])
for variant in ("compile_causal_qk_rope", "compile_causal"):
    torch._dynamo.reset()
    with ts.qwen3_globals_kept():
        model = ts.build_variant(variant, None, ts.model_config(cfg))
        batch = ts.make_batch(cfg)
        ex = torch._dynamo.explain(model._orig_mod)(input_ids=batch, labels=batch)
        print(variant, "graphs", ex.graph_count, "breaks", ex.graph_break_count, flush=True)
        seen = set()
        for r in ex.break_reasons:
            key = r.reason[:200]
            if key in seen:
                continue
            seen.add(key)
            print("- reason:", r.reason[:1500])
            for frame in r.user_stack[-4:]:
                print("   at", frame)
        del model
