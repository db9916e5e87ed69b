#!/usr/bin/env bash
# Session 22: qk_norm_rope with the swept launch configs (forward 8 rows; backward 32 rows, 4 warps,
# 8 programs per SM) in the probe, and the step against its control qk_sep (Liger's RoPE and RMSNorm on
# q_norm/k_norm, one kernel per op): 0.6B eager three rounds of hf / qk_sep / qk_rope, interleaved;
# compile_causal and compile_causal_qk_rope; 1.7B eager two rounds; a second compile round if time is left.
# Usage (device, carry [".whl"]): bash device_runs/session22.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s22 && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
echo "=== probe $(date -u +%T)" >> "$OUT/log.txt"
timeout 90 python3 -m qwen3_fusion.bench --out "$W" --probe qk_rope >> "$OUT/log.txt" 2>&1
tar -cf "$OUT/results.tar" -C "$W" .
for r in 1 2 3; do for v in hf qk_sep qk_rope; do step_round "$W" qwen3_0.6b_8l $v $r; done; done
for v in compile_causal compile_causal_qk_rope; do step_round "$W" qwen3_0.6b_8l $v 1; done
for r in 1 2; do for v in hf qk_sep qk_rope; do step_round "$W" qwen3_1.7b_6l $v $r; done; done
if [ $((SECONDS - T0)) -lt 420 ]; then
  for v in compile_causal compile_causal_qk_rope; do step_round "$W" qwen3_0.6b_8l $v 2; done
fi
tail -30 "$OUT/log.txt"
