"""Merge atomic_dw probe outputs (one file per fresh process) into one results file: {"meta", "runs": [rows, ...]}.

Usage: python device_runs/merge_atomic_runs.py OUT.json NOTE RUN1.json [RUN2.json ...]
NOTE is appended to the first run's meta.command (where the runs came from); every run must name the same GPU.
"""

import json
import sys


def main(out: str, note: str, *runs: str) -> None:
    files = [json.loads(open(p, encoding="utf-8").read()) for p in runs]
    gpus = {f["meta"]["gpu"] for f in files}
    if len(gpus) != 1:
        raise SystemExit(f"merge_atomic_runs: runs from different GPUs: {sorted(gpus)}")
    meta = dict(files[0]["meta"])
    meta["command"] = f"{meta['command']} ({note})"
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"meta": meta, "runs": [r["rows"] for r in files]}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
