"""Fold the repeat runs (device_runs/h200_2026-12-03_repeats: train section runs 2 and 3, Liger group
probes 2 and 3) and run 1 (the committed results/h200.json train section, results/h200_liger_full.json)
into results/h200_train_repeats.json: per run, per config, the figures that vary run to run."""

import json
import sys
from pathlib import Path

RES = Path("src_literate/results")
REP = Path("device_runs/h200_2026-12-03_repeats")
KEEP = ("variant", "step_ms", "peak_gb", "host_issue_ms", "host_issue_ms_samples")


def train_rows(path):
    d = json.loads(Path(path).read_text())
    return d["meta"] if "meta" in d else None, {
        cfg: [{k: r[k] for k in KEEP if k in r} for r in rows] for cfg, rows in d["train_steps"].items()
    }


def probe_rows(path):
    d = json.loads(Path(path).read_text())
    return d["meta"], {cfg: [{k: r[k] for k in ("group", "step_ms", "peak_gb") if k in r} for r in rows]
                       for cfg, rows in d["configs"].items()}


def main() -> int:
    runs, probes, metas = [], [], []
    for path in (RES / "h200.json", REP / "run2/h200.json", REP / "run3/h200.json"):
        meta, rows = train_rows(path)
        runs.append(rows)
        metas.append(meta)
    for path in (RES / "h200_liger_full.json", REP / "probe2/h200_liger_full.json",
                 REP / "probe3/h200_liger_full.json"):
        meta, rows = probe_rows(path)
        probes.append(rows)
        metas.append(meta)
    keys = ("gpu", "driver", "cuda", "torch", "triton", "transformers", "liger_kernel", "date")
    for m in metas[1:]:
        if any(m[k] != metas[0][k] for k in keys):
            print(f"runs differ in meta: {m}", file=sys.stderr)
            return 1
    meta = {k: metas[0][k] for k in ("gpu", "sm_count") + keys}
    meta["command"] = ("python -m qwen3_fusion.bench --only train (3 runs, each a fresh process); "
                       "python device_runs/liger_full_probe.py (3 runs)")
    out = {"meta": meta, "train_runs": runs, "liger_group_runs": probes}
    (RES / "h200_train_repeats.json").write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
