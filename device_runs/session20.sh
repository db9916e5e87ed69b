#!/usr/bin/env bash
# Twentieth session: the backward split into its kernels (bench --probe bwd_split), on whichever card comes;
# the file names the card. Results into $OUT/results.tar, the log into $OUT/log.txt.
# Usage (device, carry [".whl"]): bash device_runs/session20.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s20 && mkdir -p "$W"
nvidia-smi --query-gpu=name --format=csv,noheader >> "$OUT/log.txt"
echo "=== bwd_split $(date -u +%T)" >> "$OUT/log.txt"
timeout 420 python3 -m qwen3_fusion.bench --out "$W" --probe bwd_split >> "$OUT/log.txt" 2>&1
echo "=== bwd_split done rc=$? $(date -u +%T)" >> "$OUT/log.txt"
tar -cf "$OUT/results.tar" -C "$W" .
tail -60 "$OUT/log.txt"
