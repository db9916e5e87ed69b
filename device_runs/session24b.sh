#!/usr/bin/env bash
# Session 24, second call: the graph breaks of the compiled step with qk_norm_rope (device_runs/session24_breaks.py)
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
timeout 200 python3 device_runs/session24_breaks.py > "$OUT/breaks.txt" 2>&1
echo "rc=$?" >> "$OUT/breaks.txt"
grep -v "Warning\|warn(" "$OUT/breaks.txt" | head -80
