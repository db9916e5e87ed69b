#!/usr/bin/env bash
# Session 25, first call (H200): (1) the GPU-only tests of the q/k op and the cached launcher, on the H200 this time
# (session 24 ran them on an H100); (2) compile_causal against compile_causal_qk_rope after the graph-break fix,
# three interleaved rounds (a fresh process each), qwen3_0.6b_8l, then steps_to_json.py on the device's own meta;
# (3) post 1's scan with --inductor cuda at 8 layers (the step runs' depth).
# Usage (device, carry [".whl"]): bash device_runs/session25.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s25 && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/log.txt"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_qk_norm_rope.py \
  "tests/test_rmsnorm.py::test_cached_launch_matches_triton_launch" > "$OUT/pytest_gpu.txt" 2>&1
echo "pytest rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"
compiled_pair_rounds "$W"
# (3) the training-step scan at the depth of the step runs (8 layers), with Inductor's verdict per candidate
timeout 200 qwen3-fusion-scan --config qwen3-0.6b --layers 8 --seq 2048 --batch 4 --device meta --train --inductor cuda --json \
  > "$W/scan_8l.json" 2> "$W/scan_8l.err"; echo "scan rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"
tar -cf "$OUT/results.tar" -C "$W" .
tail -3 "$OUT/pytest_gpu.txt"; tail -12 "$OUT/log.txt"; grep -h "median step" "$W"/step_*.txt
