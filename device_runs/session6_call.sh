#!/usr/bin/env bash
# Sixth session, first H200 call: Liger FLCE chunking repeated (runs 2 and 3; run 1 is the committed
# results/h200_flce_chunks.json), now with Liger without FLCE and the full patch at chunk_mem_const 16
# in the same process; then the host time of each layer of the RMSNorm forward's launch path.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader | tee "$OUT/gpu.txt"
timeout 100 python3 device_runs/launch_host.py 2>&1 | tee "$OUT/launch_host.txt" | tail -16
for r in 2 3; do
  for c in "" --1.7b; do
    timeout 150 python3 device_runs/flce_chunks.py --run=$r $c 2>&1 | tee -a "$OUT/flce_chunks_log.txt" \
      | grep -o "'group': '[a-z_]*', 'step_ms': [0-9.]*, 'peak_gb': [0-9.]*\|rror.*" | head -12
  done
done
