"""Collect `python -m qwen3_fusion.train_step` outputs (one file per config and variant) into one results file.

Usage: python device_runs/steps_to_json.py RUN_DIR OUT.json "command that produced them" SAME_CALL.json
SAME_CALL.json is a results file written by the same device call: its meta's driver and CUDA are copied.
RUN_DIR holds versions.txt (torch triton transformers gpu, one line) and step_<config>_<variant>.txt files
(step_<config>_<variant>_r<N>.txt for repeated runs: the row gets "run": N).
"""
import json, pathlib, re, sys

run, dest, command = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
same = json.loads(pathlib.Path(sys.argv[4]).read_text())["meta"]
torch_v, triton_v, tf_v, *gpu = (run / "versions.txt").read_text().split()
line = re.compile(r"^(\S+) (\d+)x(\d+) (\S+): median step ([\d.]+) ms over (\d+) steps after warm-up; "
                  r"peak memory ([\d.]+) GB; first loss ([\d.]+)$", re.M)
rows = []
for f in sorted(run.glob("step_*.txt")):
    m = line.search(f.read_text())
    if not m:
        sys.exit(f"{f}: no step line")
    cfg, bsz, seq, variant, ms, n, mem, loss = m.groups()
    rows.append({"config": cfg, "batch": int(bsz), "seq": int(seq), "variant": variant, "median_step_ms": float(ms),
                 "steps_timed": int(n), "peak_memory_gb": float(mem), "first_loss": float(loss)})
    if r := re.search(r"_r(\d+)\.txt$", f.name):
        rows[-1]["run"] = int(r.group(1))
date = same.get("date") or re.search(r"(\d{4}-\d{2}-\d{2})", run.name).group(1)
assert same["gpu"] == " ".join(gpu) and same["torch"] == torch_v, "SAME_CALL.json is from another machine"
meta = {"gpu": " ".join(gpu), "driver": same["driver"], "cuda": same["cuda"], "torch": torch_v, "triton": triton_v, "transformers": tf_v, "date": date,
        "command": command}
dest.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
print(f"{dest}: {len(rows)} rows")
