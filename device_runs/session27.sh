#!/usr/bin/env bash
# Session 27, first call (H200), most important first so that a timeout keeps it: (1) compile_causal against
# compile_causal_qk_rope after the graph-break fix, three interleaved rounds; (2) the atomic-dW probe, now the
# shipped backward kernel with ATOMIC_DW set (time and run-to-run distinct dW); (3) the GPU-only tests of the q/k
# op, the cached launcher and the atomic path; (4) post 1's training-step scan at 8 layers with --inductor cuda.
# Each later step is skipped when the call's 600 s would not hold it; results.tar is re-packed after each step.
# Usage (device, carry [".whl"]): bash device_runs/session27.sh  (supersedes the never-run session26.sh)
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s27 && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/log.txt"
compiled_pair_rounds "$W"
if (( SECONDS - T0 < 440 )); then
  timeout 90 python3 -m qwen3_fusion.bench --probe atomic_dw --out "$W" > "$W/atomic_dw.log" 2>&1
  echo "atomic_dw rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
fi
if (( SECONDS - T0 < 420 )); then
  timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_qk_norm_rope.py \
    "tests/test_rmsnorm.py::test_cached_launch_matches_triton_launch" "tests/test_rmsnorm.py::test_atomic_dw_matches_reference" > "$W/pytest_gpu.txt" 2>&1
  echo "pytest rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
fi
if (( SECONDS - T0 < 440 )); then
  timeout $((570 - (SECONDS - T0))) qwen3-fusion-scan --config qwen3-0.6b --layers 8 --seq 2048 --batch 4 --device meta \
    --train --inductor cuda --json > "$W/scan_8l.json" 2> "$W/scan_8l.err"
  echo "scan rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
fi
tail -14 "$OUT/log.txt"; grep -h "median step" "$W"/step_*.txt; grep -h "atomic_dw " "$W/atomic_dw.log"; tail -2 "$W/pytest_gpu.txt"
