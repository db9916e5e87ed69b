"""Add the run's environment to a `qwen3-fusion-scan --json` file, in place: the scanner's own meta names
its cost model ("gpu": "h200"), so the device goes under "gpu_name" (as in the committed
h200_scan_inductor_*.json). Run on the device, right after the scan.

Usage: python device_runs/scan_meta.py FILE.json "the scan's command line"
"""

import json
import sys

import torch

from qwen3_fusion import bench_common as bc

path, command = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as f:
    res = json.load(f)
bc.SMOKE = not torch.cuda.is_available()  # a CPU smoke run names "smoke-cpu"
env = bc.environment(command)
env["gpu_name"] = env.pop("gpu")
res["meta"].update(env)
bc.write_json(res, path)
