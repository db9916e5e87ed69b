#!/usr/bin/env bash
# Session 27, H100: the atomic-dW probe re-measured on the shipped backward kernel (ATOMIC_DW set; session 26
# measured a rewrite without VEC), three runs in fresh processes, then the GPU tests of the atomic path and
# the cached launcher.
# Usage (device, carry [".whl"]): bash device_runs/session27h.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s27h && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/log.txt"
for r in 1 2 3; do
  mkdir -p "$W/run$r"
  timeout 150 python3 -m qwen3_fusion.bench --probe atomic_dw --out "$W/run$r" > "$W/run$r/atomic_dw.log" 2>&1
  echo "atomic_dw run$r rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
done
timeout 120 python3 -m pytest -q -p no:cacheprovider "tests/test_rmsnorm.py::test_atomic_dw_matches_reference" \
  "tests/test_rmsnorm.py::test_cached_launch_matches_triton_launch" "tests/test_rmsnorm.py::test_kernels_match_reference" > "$W/pytest_gpu.txt" 2>&1
echo "pytest rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
tail -8 "$OUT/log.txt"; grep -h "atomic_dw " "$W"/run*/atomic_dw.log; tail -2 "$W/pytest_gpu.txt"
