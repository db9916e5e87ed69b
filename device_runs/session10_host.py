"""Where the host's time goes in one training step: HF eager and Liger full (FLCE chunk_mem_const 16),
Qwen3-0.6B x 8 layers, 4 x 2048 (post 1 §六: Liger's step issues fewer kernels than HF's but takes
longer to issue). Each step is issued from an idle device (synchronize first) and timed on the host;
one more step runs under cProfile, and the functions with the most own time are printed.

Usage: python device_runs/session10_host.py [--smoke] > $OUT/host_profile.txt
"""

import cProfile
import io
import pstats
import sys
import time

import torch

from qwen3_fusion import bench_common as bc

if "--smoke" in sys.argv:
    bc.use_smoke()
from qwen3_fusion import train_step as ts  # noqa: E402

cfg = ts.SMOKE_CONFIG if bc.SMOKE else ts.TRAIN_CONFIG
state, batch = ts.reference_state(cfg), ts.make_batch(cfg)
for variant in ("hf", "liger_full_coarse") if not bc.SMOKE else ("hf",):
    with ts.qwen3_globals_kept(), ts.flce_chunks_kept():
        model = ts.build_variant(variant, state, ts.model_config(cfg))
        _, _, opt = ts.run_steps(model, batch, 3)

        def step():
            model(input_ids=batch, labels=batch).loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)

        host = []
        for _ in range(7):
            bc.sync()
            t = time.perf_counter()
            step()
            host.append((time.perf_counter() - t) * 1e3)
        bc.sync()
        prof = cProfile.Profile()
        prof.enable()
        step()
        prof.disable()
        bc.sync()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(30)
    print(f"### {variant}: host ms to issue one step from an idle device: {[round(h, 1) for h in host]}")
    print(bc.strip_paths(s.getvalue()))
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(40)
    print(f"### {variant}: by cumulative time")
    print(bc.strip_paths(s.getvalue()))
    del model, opt
    if not bc.SMOKE:
        torch.cuda.empty_cache()
