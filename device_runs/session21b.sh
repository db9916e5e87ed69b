#!/usr/bin/env bash
# Session 21, second call: qk_norm_rope after the rewrite (FMA contraction off in the forward, persistent
# backward reading dy and cos/sin through their strides): diagnostics (qk_diag.py), the probe, step times.
# Usage (device, carry [".whl"]): bash device_runs/session21b.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s21b && mkdir -p "$W"
nvidia-smi --query-gpu=name --format=csv,noheader >> "$OUT/log.txt"
echo "=== diag $(date -u +%T)" >> "$OUT/log.txt"
(cd "$W" && OUT="$W" timeout 200 python3 "$OLDPWD/device_runs/qk_diag.py") 2>&1 | grep -v Warn >> "$OUT/log.txt"
tar -cf "$OUT/results.tar" -C "$W" .
echo "=== probe $(date -u +%T)" >> "$OUT/log.txt"
timeout 100 python3 -m qwen3_fusion.bench --out "$W" --probe qk_rope >> "$OUT/log.txt" 2>&1
tar -cf "$OUT/results.tar" -C "$W" .
VARIANTS="hf qk_rope compile_causal compile_causal_qk_rope"  # baselines in the same call
for cfg in qwen3_0.6b_8l qwen3_1.7b_6l; do
  for v in $VARIANTS; do
    timeout 90 python3 -m qwen3_fusion.train_step --config "$cfg" --variant "$v" > "$W/step_${cfg}_${v}.txt" 2>&1
    echo "$cfg $v rc=$? $(date -u +%T)" >> "$OUT/log.txt"
    tar -cf "$OUT/results.tar" -C "$W" .
  done
done
tail -60 "$OUT/log.txt"
