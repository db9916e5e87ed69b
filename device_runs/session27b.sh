#!/usr/bin/env bash
# Session 27, second H200 call (after session27.sh): two more atomic-dW runs (fresh processes, so 5.2 reads three),
# the backward split by kernel (5.2's second-kernel share, 2.6's Inductor sum share) on the H200, the GPU tests,
# and post 1's 8-layer training scan with --inductor cuda. Each step is guarded by the time left.
# Usage (device, carry [".whl"]): bash device_runs/session27b.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s27b && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
for r in 2 3; do
  mkdir -p "$W/atomic_run$r"
  timeout 120 python3 -m qwen3_fusion.bench --probe atomic_dw --out "$W/atomic_run$r" > "$W/atomic_run$r/atomic_dw.log" 2>&1
  echo "atomic_dw run$r rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
done
if (( SECONDS - T0 < 400 )); then
  timeout 150 python3 -m qwen3_fusion.bench --probe bwd_split --out "$W" > "$W/bwd_split.log" 2>&1
  echo "bwd_split rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
fi
if (( SECONDS - T0 < 330 )); then
  timeout $((560 - (SECONDS - T0))) qwen3-fusion-scan --config qwen3-0.6b --layers 8 --seq 2048 --batch 4 --device meta \
    --train --inductor cuda --json > "$W/scan_8l.json" 2> "$W/scan_8l.err"
  echo "scan rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
fi
if (( SECONDS - T0 < 460 )); then
  timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_qk_norm_rope.py \
    "tests/test_rmsnorm.py::test_cached_launch_matches_triton_launch" "tests/test_rmsnorm.py::test_atomic_dw_matches_reference" > "$W/pytest_gpu.txt" 2>&1
  echo "pytest rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
fi
tail -8 "$OUT/log.txt"; grep -h "atomic_dw " "$W"/atomic_run*/atomic_dw.log; tail -2 "$W/pytest_gpu.txt"
