#!/usr/bin/env bash
# Session 26, H100 fallback (the H200 refused every start): the atomic-dW probe alone (5.2's other strategy).
# Usage (device, carry [".whl"]): bash device_runs/session26h.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s26h && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/log.txt"
timeout 150 python3 -m qwen3_fusion.bench --probe atomic_dw --out "$W" > "$W/atomic_dw.log" 2>&1
echo "atomic_dw rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .
tail -6 "$OUT/log.txt"; grep -h "atomic_dw " "$W/atomic_dw.log"; tail -3 "$W/atomic_dw.log"
