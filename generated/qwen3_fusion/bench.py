# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""GPU benchmark of the RMSNorm kernels and Qwen3 training steps: `python -m qwen3_fusion.bench`.

One run on one CUDA GPU writes src_literate/results/<gpu>.json (every section with the meta of
the run that measured it) and its artifacts: <gpu>_bench.txt (the tables), <gpu>_inductor_rmsnorm.txt
and <gpu>_layer_trace.json. `--only SECTION[,SECTION]` re-runs those sections and merges them into
the existing file; `--smoke` runs every section on the CPU at tiny sizes into a folder of your
choice, to check the schema; `--sweep` times launch configs of our kernels instead, and
`--probe NAME[,NAME]` runs the side measurements of qwen3_fusion.bench_probes (one file each).

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "ROW_KEYS",
    "SCHEMA",
    "SECTIONS",
    "SECTION_KEYS",
    "check_targets",
    "format_report",
    "main",
    "run_section",
    "validate",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_head
import argparse
import json
import math
import os
import sys
import time

import torch

from qwen3_fusion import bench_common as bc

SECTIONS = ("rmsnorm", "host", "train", "profile", "inductor", "trace")
SCHEMA = 3
# keys each section writes at the top level of the results file
SECTION_KEYS = {
    "rmsnorm": ("copy", "rmsnorm", "copy_by_shape", "copy_by_shape_bwd", "skipped"),
    "host": ("host",), "train": ("train_steps", "configs"), "profile": ("profile",),
    "inductor": ("inductor",), "trace": ("layer_trace",),
}  # fmt: skip
ROW_KEYS = ("rows", "n", "dtype", "impl", "pass", "ms", "ms_min", "ms_max", "ms_eager", "gbps",
            "pct_copy", "rel_err")  # fmt: skip


def run_section(name: str, res: dict, out_dir: str, slug: str, log) -> None:
    """Measure one section into res (and its artifact files into out_dir)."""
    from qwen3_fusion import bench_artifacts as art
    from qwen3_fusion import bench_norms as norms
    from qwen3_fusion import train_step as ts

    meta = res["sections"][name]
    if name == "rmsnorm":
        res["copy"] = bc.copy_ceiling()
        log(f"copy {res['copy']['gbps']:.0f} GB/s")
        shapes = norms.SMOKE_SHAPES if bc.SMOKE else norms.RMSNORM_SHAPES
        impls = ["ours", "hf_eager", "f_rms_norm"] if bc.SMOKE else ["ours"] + norms.PEERS
        res.update(norms.time_all_rmsnorm(impls, res["copy"]["gbps"], shapes, log=log))
    elif name == "host":
        impls = ["ours", "hf_eager", "f_rms_norm"] if bc.SMOKE else norms.HOST_IMPLS
        res["host"] = norms.host_table(impls, log=log)
    elif name == "train":
        configs = ts.bench_configs()
        variants = ["hf", "ours_fwd", "ours_fwd_bwd"] if bc.SMOKE else ts.TRAIN_VARIANTS
        res["configs"] = configs
        res["train_steps"] = {k: ts.train_table(variants, c, log=log) for k, c in configs.items()}
    elif name == "profile":
        res["profile"] = art.profile_hf_step(ts.SMOKE_CONFIG if bc.SMOKE else ts.TRAIN_CONFIG)
        res["profile"]["config"] = "smoke" if bc.SMOKE else "qwen3_0.6b_8l"
    elif name == "inductor":
        code, res["inductor"] = art.inductor_rmsnorm_code(*((64, 128) if bc.SMOKE else ()))
        res["inductor"]["file"] = f"{slug}_inductor_rmsnorm.txt"
        bc.write_text(os.path.join(out_dir, res["inductor"]["file"]),
                      bc.header(meta, "inductor rmsnorm") + code.rstrip() + "\n")  # fmt: skip
    elif name == "trace":
        if bc.SMOKE:  # the trace needs CUDA events; the smoke run records the file name only
            res["layer_trace"] = {"file": None, "skipped": "needs a CUDA GPU"}
            return
        res["layer_trace"] = {"file": f"{slug}_layer_trace.json"}
        bc.write_text(os.path.join(out_dir, res["layer_trace"]["file"]), art.layer_trace(meta))


# %% src_literate/post2_triton_rmsnorm.pmd::bench_won
def _won(mine: dict, peer: dict) -> bool:
    """Faster beyond run-to-run spread: our slowest repeat beats the peer's fastest."""
    return mine["ms_max"] < peer["ms_min"]


def check_targets(res: dict) -> list[dict]:
    """Kernel v3's targets, each with its measured value and whether it is met."""
    out = []
    add = lambda target, value, met: out.append(
        {"target": target, "value": value, "met": bool(met)}
    )
    rows = [r for r in res.get("rmsnorm", []) if r["dtype"] == "bfloat16"]
    for r in [r for r in rows if r["impl"] == "ours"]:
        shape, p = f"{r['rows']}x{r['n']}", r["pass"]
        if r["rows"] * r["n"] * 2 >= 64e6:
            need = 90 if p == "fwd" else 80
            add(f"{p} {shape} >= {need}% of copy", r["pct_copy"], r["pct_copy"] >= need)
        for q in rows:
            if (
                q["impl"] != "ours"
                and q["pass"] == p
                and (q["rows"], q["n"]) == (r["rows"], r["n"])
            ):
                if q["impl"] in ("torch_compile", "liger", "liger_inplace", "f_rms_norm"):
                    add(f"{p} {shape} not slower than {q['impl']} (its ms / ours)", q["ms"] / r["ms"],
                        r["ms_min"] <= q["ms_max"])  # fmt: skip
    host = {(h["impl"], h["n"]): h for h in res.get("host", [])}
    for (impl, n), h in host.items():
        if impl == "ours":
            add(f"host fwd N={n} <= 60 us", h["fwd_us"], h["fwd_us"] <= 60)
            add(f"host fwd+bwd N={n} <= 250 us", h["fwd_bwd_us"], h["fwd_bwd_us"] <= 250)
            hf = host.get(("hf_eager", n))
            if hf:
                add(f"host fwd+bwd N={n} <= HF eager", h["fwd_bwd_us"] / hf["fwd_bwd_us"],
                    h["fwd_bwd_us"] <= hf["fwd_bwd_us"])  # fmt: skip
    for name, steps_list in res.get("train_steps", {}).items():
        steps = {s["variant"]: s["step_ms"] for s in steps_list}
        for mine, other in (
            ("ours_fwd_bwd", "hf"),
            ("ours_fwd_bwd", "liger"),
            ("compile_ours", "compile"),
        ):
            if mine in steps and other in steps:
                add(f"train {name} {mine} <= {other} (ratio)", steps[other] / steps[mine],
                    steps[mine] <= steps[other])  # fmt: skip
    return out


def validate(res: dict) -> None:
    """The results file's schema: every section has its meta and keys; every number is finite."""
    problems = []
    for name, meta in res.get("sections", {}).items():
        missing = [
            k
            for k in ("gpu", "date", "torch", "triton", "transformers", "command")
            if k not in meta
        ]
        problems += [f"section {name}: meta lacks {', '.join(missing)}"] if missing else []
        problems += [f"section {name}: no {k}" for k in SECTION_KEYS[name] if k not in res]
    for r in res.get("rmsnorm", []):
        problems += [f"rmsnorm row {r.get('impl')}: no {k}" for k in ROW_KEYS if k not in r]

    def walk(v, where):
        if isinstance(v, float) and not math.isfinite(v):
            problems.append(f"{where} is {v}")
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(x, f"{where}.{k}")
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{where}[{i}]")

    walk(res, "results")
    if problems:
        raise ValueError("results schema: " + "; ".join(problems[:10]))


# %% src_literate/post2_triton_rmsnorm.pmd::bench_format_report
def format_report(res: dict) -> str:
    """Plain-text tables of the results: RMSNorm per shape and impl, host time, training, targets."""
    lines = []
    if "copy" in res:
        c = res["copy"]
        lines += [f"copy ceiling: {c['gbps']:.0f} GB/s ({c['bytes'] / 2**30:.0f} GiB moved in {c['ms']:.3f} ms)", "",
                  "RMSNorm: graph / eager medians of 3 repeats [min-max] in us; GB/s; % of copy; "
                  "same-size copy % (fwd 2 passes, bwd 3); rel err vs float64; y == HF eager",
                  f"{'shape':<20}{'pass':<5}{'impl':<28}{'graph us':>26}{'eager us':>26}{'GB/s':>7}"
                  f"{'%copy':>7}{'copy@':>7}{'relerr':>9}{'=HF':>7}"]  # fmt: skip
    at = {(d["rows"], d["n"], d["dtype"], p): d["pct_copy"]
          for p, key in (("fwd", "copy_by_shape"), ("bwd", "copy_by_shape_bwd")) for d in res.get(key, [])}  # fmt: skip
    us = lambda r, k: f"{r[k] * 1e3:.1f} [{r[k + '_min'] * 1e3:.1f}-{r[k + '_max'] * 1e3:.1f}]"
    for r in res.get("rmsnorm", []):
        eq = f"{r['bitwise_equal_hf']:.3f}" if "bitwise_equal_hf" in r else "-"
        lines.append(f"{r['rows']}x{r['n']} {r['dtype']:<9}{r['pass']:<5}{r['impl']:<28}{us(r, 'ms'):>26}"
                     f"{us(r, 'ms_eager'):>26}{r['gbps']:7.0f}{r['pct_copy']:7.1f}"
                     f"{at.get((r['rows'], r['n'], r['dtype'], r['pass'])) or 0:7.1f}{r['rel_err']:9.1e}{eq:>7}")  # fmt: skip
    if res.get("host"):
        lines += ["", "host us per call, 64xN bf16, x requires grad, 300 calls back to back:"]
        lines += [f"  N={h['n']:<5} {h['impl']:<16} fwd {h['fwd_us']:7.1f}  fwd+bwd {h['fwd_bwd_us']:7.1f}"
                  for h in res["host"]]  # fmt: skip
    for name, steps in res.get("train_steps", {}).items():
        lines += ["", f"train {name}:", f"{'variant':<16}{'step ms':>9}{'tok/s':>10}{'peak GB':>9}"
                  f"{'host ms':>9}{'speedup':>9}{'setup s':>9}  losses"]  # fmt: skip
        for r in steps:
            sp = f"{r['speedup']:.2f}" if r.get("speedup") else "-"
            lines.append(f"{r['variant']:<16}{r['step_ms']:9.1f}{r['tokens_per_s']:10.0f}{r['peak_gb']:9.1f}"
                         f"{r['host_issue_ms']:9.1f}{sp:>9}{r['setup_s']:9.0f}  "
                         + " ".join(f"{v:.4f}" for v in r["losses_first3"]))  # fmt: skip
    if res.get("skipped"):
        lines += ["", "skipped:"] + [f"  {k}: {v}" for k, v in res["skipped"].items()]
    targets = res.get("targets", [])
    lines += ["", "targets (MET / MISS, measured value):"]
    lines += [
        f"  {'MET ' if t['met'] else 'MISS'} {t['target']}: {t['value']:.2f}" for t in targets
    ]
    lines.append(f"  {sum(t['met'] for t in targets)}/{len(targets)} met")
    return "\n".join(lines)


def main(argv=None) -> int:
    """Run the sections on the GPU (or --smoke on the CPU) and write the results."""
    from qwen3_fusion.bench_probes import PROBES, run_probe  # light: torch and bench_common only

    p = argparse.ArgumentParser(
        prog="python -m qwen3_fusion.bench", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--out", default=os.path.join("src_literate", "results"), help="results folder")
    p.add_argument("--command", default="python -m qwen3_fusion.bench", help="recorded in meta")
    p.add_argument(
        "--only",
        default="",
        help=f"comma list of sections to re-run and merge: {','.join(SECTIONS)}",
    )
    p.add_argument(
        "--smoke", action="store_true", help="every section on the CPU at tiny sizes (schema check)"
    )
    p.add_argument("--sweep", action="store_true", help="only time launch configs of our kernels")
    p.add_argument("--sweep-budget", type=float, default=300, help="seconds for --sweep")
    p.add_argument(
        "--probe", default="", help=f"comma list of bench_probes to run instead: {','.join(PROBES)}"
    )
    args = p.parse_args(argv)
    only = [s for s in args.only.split(",") if s]
    if unknown := [s for s in only if s not in SECTIONS]:
        p.error(
            f"--only: unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}"
        )
    if args.smoke:
        bc.use_smoke()
    elif not torch.cuda.is_available():
        print("qwen3_fusion.bench needs a CUDA GPU (torch.cuda.is_available() is False); "
              "--smoke runs it on the CPU", file=sys.stderr)  # fmt: skip
        return 3
    t0 = time.monotonic()
    log = lambda msg: print(f"[{time.monotonic() - t0:6.1f}s] {msg}", flush=True)
    command = args.command + (" --smoke" if args.smoke else "")
    meta = bc.environment(
        command if "--only" in command or not only else f"{command} --only {args.only}"
    )
    slug = "smoke" if args.smoke else bc.gpu_slug(meta["gpu"])
    if args.probe:
        probes = [s for s in args.probe.split(",") if s]
        if unknown := [s for s in probes if s not in PROBES]:
            p.error(
                f"--probe: unknown probe(s) {', '.join(unknown)}; choose from {', '.join(PROBES)}"
            )
        for name in probes:  # the run's environment, each file with its own command
            smoke = " --smoke" if args.smoke else ""
            probe_meta = dict(meta, command=f"{args.command} --probe {name}{smoke}")
            log(f"wrote {run_probe(name, probe_meta, args.out, slug, log)}")
        return 0
    if args.sweep:
        from qwen3_fusion.bench_sweep import sweep_ours

        res = {
            "meta": meta,
            "sweep": sweep_ours(log=log, budget_s=args.sweep_budget, limit=3 if args.smoke else 0),
        }
        log(f"wrote {bc.write_json(res, os.path.join(args.out, f'{slug}_sweep.json'))}")
        return 0
    path = os.path.join(args.out, f"{slug}.json")
    res = {"schema": SCHEMA, "meta": meta, "sections": {}}
    if only and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            res = json.load(f)
        if res.get("schema") != SCHEMA or res["meta"]["gpu"] != meta["gpu"]:
            print(f"{path}: schema {res.get('schema')} on {res['meta'].get('gpu')}; --only merges "
                  f"only into a schema-{SCHEMA} file from {meta['gpu']}", file=sys.stderr)  # fmt: skip
            return 1
        res["meta"] = meta
    for name in only or SECTIONS:
        res["sections"][name] = meta
        run_section(name, res, args.out, slug, log)
        log(f"{name} done")
        bc.write_json(res, path)  # a checkpoint: what ran so far survives a later failure
    res["targets"] = check_targets(res)
    validate(res)
    report = format_report(res)
    bc.write_text(
        os.path.join(args.out, f"{slug}_bench.txt"), bc.header(meta, "bench") + report + "\n"
    )
    log(f"wrote {bc.write_json(res, path)}")
    print(report)
    return 0


# `python -m qwen3_fusion.bench`; the Jupyter kernel weaving the post is __main__ too, outside the package
if __name__ == "__main__" and globals().get("__package__") == "qwen3_fusion":
    sys.exit(main())
