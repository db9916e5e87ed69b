#!/usr/bin/env bash
# Session 23, second call: the compiled step with qk_norm_rope, which the first call (session22.sh on the H200)
# timed at 42-49 ms against compile_causal's 34.6 ms. session23_compile_qk.py in one process (shipped and pre-sweep
# launch configs, per-step times, host issue time, profiler tables).
# Usage (device, carry [".whl"]): bash device_runs/session23.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s23 && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/log.txt"
timeout 190 python3 device_runs/session23_compile_qk.py "$W" >> "$OUT/log.txt" 2>&1
echo "diag rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"
tar -cf "$OUT/results.tar" -C "$W" .
grep -a "median\|rc=" "$OUT/log.txt"
