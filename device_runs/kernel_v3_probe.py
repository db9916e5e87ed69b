"""Kernel v3 probe on one GPU (2026-12-03): host time per call and where it goes, a backward
config sweep at short rows, and whether torch.compile logs errors about our kernels.

python device_runs/kernel_v3_probe.py --out DIR [--smoke]   (PYTHONPATH=generated)
Writes DIR/probe.json and DIR/probe_cprofile.txt; prints a short table.
"""

import argparse
import cProfile
import io
import itertools
import json
import logging
import os
import pstats
import sys
import time

import torch

SMOKE = "--smoke" in sys.argv
DEV = "cpu" if SMOKE else "cuda"
sync = (lambda: None) if SMOKE else torch.cuda.synchronize


def host_us(fn, x, dy, calls):
    """Host microseconds per call: fwd (x requires grad), fwd+bwd; the GPU never limits at 64 rows."""
    out = {}
    for name in ("fwd", "fwd_bwd"):
        step = (lambda: fn(x)) if name == "fwd" else (lambda: fn(x).backward(dy))
        for _ in range(20):
            step()
        sync()
        best = []
        for _ in range(3):
            t = time.perf_counter()
            for _ in range(calls):
                step()
            best.append((time.perf_counter() - t) / calls * 1e6)
            sync()
        out[name] = sorted(best)[1]
    return out


def norms(n, w):
    import torch.nn.functional as F
    from qwen3_fusion.rmsnorm import TritonRMSNorm
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    made = {}
    for name, mod in (("ours", TritonRMSNorm(n)), ("hf_eager", Qwen3RMSNorm(n))):
        made[name] = mod.to(DEV, w.dtype)
    wp = torch.nn.Parameter(w.clone())
    made["f_rms_norm"] = lambda x: F.rms_norm(x, (n,), wp, 1e-6)
    try:
        from liger_kernel.transformers.rms_norm import LigerRMSNorm

        for ip in (False, True):
            made[f"liger{'_inplace' if ip else ''}"] = LigerRMSNorm(
                n, eps=1e-6, casting_mode="llama", in_place=ip).to(DEV, w.dtype)
    except ImportError as exc:
        print("liger:", exc)
    return made


def host_section(calls):
    import qwen3_fusion.launcher as launcher

    rows = []
    for n in (128, 1024, 4096):
        x = torch.randn(64, n, device=DEV, dtype=torch.bfloat16, requires_grad=True)
        dy = torch.randn_like(x)
        w = torch.ones(n, device=DEV, dtype=torch.bfloat16)
        for impl, fn in norms(n, w).items():
            if SMOKE and impl.startswith("liger"):
                continue
            modes = [("fast", True), ("triton_launch", False)] if impl == "ours" else [("", None)]
            for label, fast in modes:
                if fast is not None:
                    launcher._FAST = fast and not SMOKE
                r = host_us(fn, x, dy, calls)
                rows.append({"n": n, "impl": impl + (f"[{label}]" if label else ""), **r})
                print(f"host {n:5d} {rows[-1]['impl']:<24} fwd {r['fwd']:7.1f} us  fwd+bwd {r['fwd_bwd']:7.1f} us", flush=True)
        launcher._FAST = not SMOKE
    # where ours spends its host time: cProfile of fwd+bwd calls
    from qwen3_fusion.rmsnorm import TritonRMSNorm

    n = 1024
    m = TritonRMSNorm(n).to(DEV, torch.bfloat16)
    x = torch.randn(64, n, device=DEV, dtype=torch.bfloat16, requires_grad=True)
    dy = torch.randn_like(x)
    for _ in range(20):
        m(x).backward(dy)
    sync()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        m(x).backward(dy)
    sync()
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(30)
    return rows, s.getvalue()


def sweep_section(budget_s):
    """Backward configs around the short-row shapes: tile elements, warps, programs/SM, stages."""
    import qwen3_fusion.rmsnorm as ours
    import triton
    from qwen3_fusion.bench import graph_ms, rmsnorm_bytes, rmsnorm_inputs

    shapes = [(98304, 384), (131072, 256), (262144, 128), (16384, 896), (16384, 1024),
              (16384, 1536), (24576, 2560), (4096, 5120), (16384, 2048)]
    if SMOKE:
        shapes = [(64, 128)]
    out, t0 = [], time.monotonic()
    chosen = ours.tile_config
    for rows, n in shapes:
        x, w, dy = rmsnorm_inputs(rows, n, torch.bfloat16, device=DEV)
        rstd = ours.rms_norm_forward(x, w)[1]
        bn = triton.next_power_of_2(n)
        base = chosen(n, torch.bfloat16, True)
        cands = [(base.kwargs["BLOCK_M"], base.num_warps, base.kwargs["PER_SM"], base.num_stages)]
        tiles = (4096, 8192, 16384) if n <= 1536 else (bn, 2 * bn, 4 * bn)
        for el, warps, per_sm, st in itertools.product(tiles, (4, 8), (1, 2, 4, 8), (2, 3)):
            c = (max(1, el // bn), warps, per_sm, st)
            if c not in cands and (st - 1) * c[0] * bn * 4 <= 0.7 * 227 * 1024:
                cands.append(c)
        if SMOKE:
            cands = cands[:3]
        res = []
        for m_, warps, per_sm, st in cands:
            if time.monotonic() - t0 > budget_s:
                break
            cfg = triton.Config({"BLOCK_M": m_, "PER_SM": per_sm}, num_warps=warps, num_stages=st)
            ours.tile_config = lambda nn, dt, backward=False, dy_dtype=None, smem=0, cfg=cfg, n=n: (
                cfg if (nn, backward) == (n, True) else chosen(nn, dt, backward, dy_dtype, smem))
            ours._plan.cache_clear()
            try:
                f = lambda: ours.rms_norm_backward(dy, x, w, rstd)
                f()
                ms = (time.perf_counter(), f(), sync(), time.perf_counter()) if SMOKE else None
                ms = (ms[3] - ms[0]) * 1e3 if SMOKE else graph_ms(f, 5, 25)
            except Exception as exc:  # noqa: BLE001 - out of resources
                print(f"sweep {rows}x{n} {cfg}: {str(exc)[:100]}")
                continue
            finally:
                ours.tile_config = chosen
                ours._plan.cache_clear()
            gbps = rmsnorm_bytes(rows, n, torch.bfloat16, "bwd") / ms / 1e6
            res.append({"rows": rows, "n": n, "BLOCK_M": m_, "num_warps": warps, "PER_SM": per_sm,
                        "num_stages": st, "ms": ms, "gbps": gbps, "default": len(res) == 0})
        if res:
            best = min(res, key=lambda r: r["ms"])
            print(f"sweep {rows}x{n}: default {res[0]['gbps']:.0f} GB/s, best {best['gbps']:.0f} "
                  f"M={best['BLOCK_M']} w={best['num_warps']} per_sm={best['PER_SM']} st={best['num_stages']} ({len(res)} tried)", flush=True)
        out += res
        del x, w, dy, rstd
    return out


def compile_section():
    """Compile a 2-layer Qwen3 with our norm; count Inductor log records about mutation analysis."""
    from qwen3_fusion.patching import patch_qwen3_rmsnorm
    from transformers import Qwen3Config, Qwen3ForCausalLM

    records = []

    class Grab(logging.Handler):
        def emit(self, rec):
            records.append(rec.getMessage()[:300])

    h = Grab(level=logging.WARNING)
    logging.getLogger("torch").addHandler(h)
    cfg = Qwen3Config(vocab_size=1024, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, head_dim=64)
    cfg._attn_implementation = "sdpa"
    model = Qwen3ForCausalLM(cfg).to(DEV, torch.bfloat16)
    patch_qwen3_rmsnorm(model)
    step = torch.compile(model)
    ids = torch.randint(0, 1024, (2, 64), device=DEV)
    for _ in range(2):
        step(input_ids=ids, labels=ids).loss.backward()
    sync()
    logging.getLogger("torch").removeHandler(h)
    bad = [r for r in records if "mutated" in r or "Traceback" in r or "exception" in r.lower()]
    return {"warnings": len(records), "mutation_or_exception": len(bad), "first": records[:5]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--sweep-budget", type=float, default=240)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    res = {"torch": torch.__version__, "date": time.strftime("%Y-%m-%d")}
    if not SMOKE:
        import triton
        import transformers

        res.update(gpu=torch.cuda.get_device_name(0), triton=triton.__version__,
                   transformers=transformers.__version__)
    res["host"], prof = host_section(30 if SMOKE else 300)
    with open(os.path.join(a.out, "probe_cprofile.txt"), "w") as f:
        f.write(prof)
    res["compile"] = compile_section()
    print("compile:", res["compile"], flush=True)
    res["sweep"] = sweep_section(a.sweep_budget)
    with open(os.path.join(a.out, "probe.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
