#!/usr/bin/env bash
# Session 22, second call (what device time was left, ~500 s): the H200 replicate of session22.sh's core:
# the probe, 0.6B hf / qk_sep / qk_rope in two interleaved rounds, compile_causal / compile_causal_qk_rope once.
# Usage (device, carry [".whl"]): bash device_runs/session22b.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s22b && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
timeout 90 python3 -m qwen3_fusion.bench --out "$W" --probe qk_rope >> "$OUT/log.txt" 2>&1
tar -cf "$OUT/results.tar" -C "$W" .
for r in 1 2; do for v in hf qk_sep qk_rope; do step_round "$W" qwen3_0.6b_8l $v $r; done; done
for v in compile_causal compile_causal_qk_rope; do step_round "$W" qwen3_0.6b_8l $v 1; done
tail -12 "$OUT/log.txt"
