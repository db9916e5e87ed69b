#!/usr/bin/env bash
# Session 24, third call: after moving patching's imports out of the patched forward (the graph breaks that
# session24b.sh found): the graph count, then the compiled-step diagnostic again (session24_compile_qk.py).
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s24 && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
timeout 120 python3 device_runs/session24_breaks.py > "$OUT/breaks.txt" 2>&1
echo "breaks rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"
timeout 330 python3 device_runs/session24_compile_qk.py "$W" >> "$OUT/log.txt" 2>&1
echo "diag rc=$? t=$((SECONDS - T0))" >> "$OUT/log.txt"
tar -cf "$OUT/results.tar" -C "$W" .
grep -a "graphs" "$OUT/breaks.txt"; grep -a "^op \|median\|rc=" "$OUT/log.txt"
