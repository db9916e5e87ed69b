#!/usr/bin/env bash
# Session 21, last call (~250 s of device time left): qk_norm_rope with the swept launch configs as defaults
# (forward 8 heads per program; backward 32 rows, 4 warps, 8 programs per SM): the probe, and the 0.6B steps.
# Usage (device, carry [".whl"]): bash device_runs/session21d.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s21d && mkdir -p "$W"
echo "=== probe $(date -u +%T)" >> "$OUT/log.txt"
timeout 60 python3 -m qwen3_fusion.bench --out "$W" --probe qk_rope >> "$OUT/log.txt" 2>&1
tar -cf "$OUT/results.tar" -C "$W" .
for v in qk_rope compile_causal_qk_rope; do
  timeout 60 python3 -m qwen3_fusion.train_step --config qwen3_0.6b_8l --variant "$v" > "$W/step_qwen3_0.6b_8l_$v.txt" 2>&1
  echo "qwen3_0.6b_8l $v rc=$? $(date -u +%T)" >> "$OUT/log.txt"
  tar -cf "$OUT/results.tar" -C "$W" .
done
tail -20 "$OUT/log.txt"
