"""Ninth session, two questions the posts asked of the H200 without an answer yet.

1. Host cost per launched kernel in a whole eager training step (post 1 §一, §四): HF eager,
   Qwen3-0.6B x 8 layers, at 4 x 2048 (GPU-bound) and 1 x 128 (small batch): step time, host time
   to issue a step from an idle device, kernels launched per step and GPU busy time (the union of
   kernel intervals) from one profiled step.
2. The 0.6B Liger-full stall (posts 1 §5.1 and 2 §6.2): Liger's full patch with FLCE at
   chunk_mem_const 16 calls `.item()` once per step (fused_linear_cross_entropy.py, the count of
   non-ignored targets). Each step is timed with the host's wait inside `.item()` recorded, then
   again with `.item()` answering from a cache for CUDA scalars (the count does not change between
   steps of a fixed batch), in the same process, twice each, at both training configs.

Usage: python device_runs/session9_probe.py [--smoke] -> $OUT/h200_session9_probe.json
       python device_runs/session9_probe.py --steady  (tenth session: kernels and busy time of a
       steady-state step, the optimizer state already allocated) -> $OUT/h200_session9_probe_steady.json
"""

import os
import statistics
import sys
import time

import torch

SMOKE = "--smoke" in sys.argv
STEADY = "--steady" in sys.argv  # profile with the warmed optimizer; HF and compile rows only
if SMOKE:
    from qwen3_fusion import bench_common as bc

    bc.use_smoke()
from qwen3_fusion import bench_common as bc  # noqa: E402
from qwen3_fusion import train_step as ts  # noqa: E402

REAL_ITEM = torch.Tensor.item
ITEM = {"waits": [], "cached": False, "cache": {}}


def timed_item(self):
    """Tensor.item that records how long the host waits in it; with ITEM['cached'] it answers
    CUDA scalars from the value the first real call returned (no device sync)."""
    key = (self.device.type, self.dtype, tuple(self.shape))
    if ITEM["cached"] and self.device.type != "cpu" and key in ITEM["cache"]:
        ITEM["waits"].append(0.0)
        return ITEM["cache"][key]
    t = time.perf_counter()
    value = REAL_ITEM(self)
    ITEM["waits"].append((time.perf_counter() - t) * 1e3)
    ITEM["cache"].setdefault(key, value)
    return value


def kernel_stats(model, batch, opt=None, ro=False) -> dict:
    """Kernels per step and GPU busy ms (union of kernel intervals) of one profiled step.

    Without `opt` a new optimizer is made, and its first step allocates and zeroes the optimizer
    state (three kernels per parameter, counted in); --steady passes the timed steps' warmed one."""
    if SMOKE:
        return {"kernels": 0, "kernel_ms": 0.0, "busy_ms": 0.0}
    opt = opt or torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        if ro:
            torch.compiler.cudagraph_mark_step_begin()
        model(input_ids=batch, labels=batch).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
    spans = []
    for e in prof.events():
        if e.device_type.name != "CUDA" or getattr(e, "is_user_annotation", False):
            continue
        if e.name.startswith(("Optimizer.", "ProfilerStep")):
            continue
        spans.append((e.time_range.start, e.time_range.end - e.time_range.start))  # (start, duration) in us
    from qwen3_fusion.bench_artifacts import _union_ms  # the union of kernel intervals the bench uses

    return {"kernels": len(spans), "kernel_ms": sum(d for _, d in spans) / 1e3, "busy_ms": _union_ms(spans)}


def run_steps_ro(model, batch, steps: int):
    """ts.run_steps for a model compiled with mode="reduce-overhead": CUDA-graph trees reuse output
    memory, so each step is marked and its loss copied before the next one runs."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=not bc.SMOKE)
    marks, losses = [], []
    for _ in range(steps):
        marks.append(ts._mark())
        torch.compiler.cudagraph_mark_step_begin()
        loss = model(input_ids=batch, labels=batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.detach().clone())
    marks.append(ts._mark())
    bc.sync()
    return [ts._elapsed_ms(a, b) for a, b in zip(marks[:-1], marks[1:])], [float(v) for v in losses], opt


def measure(variant: str, cfg: dict, state, batch, tag: str, cached_item: bool = False) -> dict:
    with ts.qwen3_globals_kept(), ts.flce_chunks_kept():
        steps = ts.run_steps
        if variant == "compile_ro":  # the whole model under torch.compile(mode="reduce-overhead")
            model = torch.compile(ts.build_variant("hf", state, ts.model_config(cfg)), mode="reduce-overhead")
            steps = run_steps_ro
        else:
            model = ts.build_variant(variant, state, ts.model_config(cfg))
        steps(model, batch, cfg["warmup_steps"])
        ITEM["cached"] = cached_item
        ITEM["waits"].clear()
        timed, losses, opt = steps(model, batch, cfg["timed_steps"])
        waits = list(ITEM["waits"])
        host = []
        for _ in range(ts.HOST_SAMPLES):
            bc.sync()
            t = time.perf_counter()
            if variant == "compile_ro":
                torch.compiler.cudagraph_mark_step_begin()
            model(input_ids=batch, labels=batch).loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            host.append((time.perf_counter() - t) * 1e3)
        bc.sync()
        stats = kernel_stats(model, batch, opt, variant == "compile_ro") if STEADY else kernel_stats(model, batch)
        ITEM["cached"] = False
    row = {
        "tag": tag, "variant": variant, "batch": cfg["batch"], "seq": cfg["seq"], "layers": cfg["layers"],
        "hidden": cfg["hidden"], "cached_item": cached_item,
        "step_ms": statistics.median(timed), "step_ms_all": timed,
        "host_issue_ms": statistics.median(host), "host_issue_ms_samples": host,
        "item_calls_per_step": len(waits) / cfg["timed_steps"], "item_wait_ms_per_step": sum(waits) / cfg["timed_steps"],
        "losses_first3": losses[:3], **stats,
    }  # fmt: skip
    print(f"{tag}: step {row['step_ms']:.1f} ms, host {row['host_issue_ms']:.1f} ms, "
          f"kernels {row['kernels']}, busy {row['busy_ms']:.1f} ms, item {row['item_calls_per_step']:.0f}x "
          f"{row['item_wait_ms_per_step']:.1f} ms/step", flush=True)  # fmt: skip
    del model
    torch._dynamo.reset()
    if not SMOKE:
        torch.cuda.empty_cache()
    return row


def main() -> int:
    torch.Tensor.item = timed_item
    rows = []
    small = dict(ts.TRAIN_CONFIG, batch=1, seq=128)
    plan = [("qwen3_0.6b_8l", ts.TRAIN_CONFIG), ("qwen3_0.6b_8l_1x128", small)]
    plan += [] if STEADY else [("qwen3_1.7b_6l", ts.TRAIN_CONFIG_1P7B)]
    if SMOKE:
        plan = [("smoke", ts.SMOKE_CONFIG), ("smoke_1x8", dict(ts.SMOKE_CONFIG, batch=1, seq=8))]
    liger = SMOKE is False and not STEADY
    for key, cfg in plan:
        state = ts.reference_state(cfg)
        batch = ts.make_batch(cfg)
        if not key.startswith("qwen3_1.7b"):
            rows.append(measure("hf", cfg, state, batch, f"{key} hf"))
        if key.endswith(("1x128", "1x8")):  # the small batch: what compile and CUDA graphs do there
            for variant in ("compile", "compile_ro"):
                try:
                    rows.append(measure(variant, cfg, state, batch, f"{key} {variant}"))
                except Exception as exc:  # noqa: BLE001 - keep the other rows
                    print(f"{key} {variant} failed: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
        if liger and not key.endswith("1x128"):
            for rep in (1, 2):
                for cached in (False, True):
                    tag = f"{key} liger_full_coarse {'item cached' if cached else 'item'} #{rep}"
                    try:
                        rows.append(measure("liger_full_coarse", cfg, state, batch, tag, cached_item=cached))
                    except Exception as exc:  # noqa: BLE001 - keep the other rows
                        print(f"{tag} failed: {type(exc).__name__}: {exc}", flush=True)
    out = {
        "meta": bc.environment("python device_runs/session9_probe.py" + (" --steady" if STEADY else "")),
        "note": "HF eager host cost per kernel at two batch shapes; Liger full (FLCE chunk_mem_const 16) "
        "with the host's wait in .item() timed, and with .item() of CUDA scalars answered from a cache",
        "rows": rows,
    }
    name = "h200_session9_probe_steady.json" if STEADY else "h200_session9_probe.json"
    path = os.path.join(os.environ.get("OUT", "/tmp"), name)
    bc.write_json(out, path)
    print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
