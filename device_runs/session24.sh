#!/usr/bin/env bash
# Session 24: (1) the GPU-only tests of the q/k op and the cached launcher (qk_norm_rope now launches through
# qwen3_fusion.launcher and takes an fp32 weight with half x); (2) session24_compile_qk.py: why the compiled
# step with qk_norm_rope ran 22-42% slower than compile_causal on the H200 in session 23.
# Usage (device, carry [".whl"]): bash device_runs/session24.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s24 && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/log.txt"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_qk_norm_rope.py \
  "tests/test_rmsnorm.py::test_cached_launch_matches_triton_launch" > "$OUT/pytest_gpu.txt" 2>&1
echo "pytest rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"
timeout 330 python3 device_runs/session24_compile_qk.py "$W" >> "$OUT/log.txt" 2>&1
echo "diag rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"
tar -cf "$OUT/results.tar" -C "$W" .
tail -3 "$OUT/pytest_gpu.txt"; grep -a "^op \|median\|rc=" "$OUT/log.txt"
