#!/usr/bin/env bash
# Session 24, fourth call: compile_causal against compile_causal_qk_rope after the graph-break fix, three
# interleaved rounds (a fresh process each), qwen3_0.6b_8l; then steps_to_json.py on the device's own meta.
# Usage (device, carry [".whl"]): bash device_runs/session24d.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s24d && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
compiled_pair_rounds "$W"
cat "$OUT/log.txt" | tail -12; grep -h "median step" "$W"/step_*.txt
