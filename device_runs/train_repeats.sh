#!/usr/bin/env bash
# Repeats for the spread: the training section again (runs 2 and 3; run 1 is the committed
# results/h200.json) and the per-Liger-group probe once more, each a fresh process, each in its own
# folder under $OUT; device_runs/merge_repeats.py folds them into results/h200_train_repeats.json.
# Usage: bash device_runs/train_repeats.sh RUN [probe]   (RUN = 2 or 3)
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader | tee "$OUT/gpu.txt"
r=$1
mkdir -p "$OUT/run$r"
timeout 250 python3 -m qwen3_fusion.bench --only train --out "$OUT/run$r" 2>&1 | tee "$OUT/run$r/bench_log.txt" \
  | grep "train\|wrote\|Error\|error" | head -40
if [ "${2:-}" = probe ]; then
  mkdir -p "$OUT/probe$r"
  OUT="$OUT/probe$r" timeout 120 python3 device_runs/liger_full_probe.py 2>&1 | tail -30
fi
