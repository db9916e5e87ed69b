#!/usr/bin/env bash
# Prepared in session 21 (no device time was left to run it): qk_norm_rope with the swept launch configs.
# First set BLOCK_M = 8 and BWD_BLOCK_M, BWD_WARPS, BWD_PER_SM = 32, 4, 8 in the qk_norm_rope chunk of
# src_literate/post2_triton_rmsnorm.pmd and tangle; then the probe and the 0.6B steps.
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
