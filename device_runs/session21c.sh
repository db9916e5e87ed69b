#!/usr/bin/env bash
# Session 21, the call that fits what device time was left (~570 s): qk_norm_rope after the rewrite (FMA
# contraction off in the forward; persistent backward reading dy and cos/sin through their strides).
#   qk_diag.py without its compiled-step profile; the probe; train_step at 0.6B (all four variants, baselines
#   in the same call) and at 1.7B eager (hf, qk_rope).
# Usage (device, carry [".whl"]): bash device_runs/session21c.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s21c && mkdir -p "$W"
nvidia-smi --query-gpu=name --format=csv,noheader >> "$OUT/log.txt"
echo "=== diag $(date -u +%T)" >> "$OUT/log.txt"
(cd "$W" && OUT="$W" DIAG_NO_STEPS=1 timeout 90 python3 "$OLDPWD/device_runs/qk_diag.py") 2>&1 | grep -v Warn >> "$OUT/log.txt"
tar -cf "$OUT/results.tar" -C "$W" .
echo "=== probe $(date -u +%T)" >> "$OUT/log.txt"
timeout 90 python3 -m qwen3_fusion.bench --out "$W" --probe qk_rope >> "$OUT/log.txt" 2>&1
tar -cf "$OUT/results.tar" -C "$W" .
for cv in qwen3_0.6b_8l:hf qwen3_0.6b_8l:qk_rope qwen3_0.6b_8l:compile_causal qwen3_0.6b_8l:compile_causal_qk_rope \
          qwen3_1.7b_6l:hf qwen3_1.7b_6l:qk_rope; do
  cfg=${cv%%:*} v=${cv##*:}
  timeout 80 python3 -m qwen3_fusion.train_step --config "$cfg" --variant "$v" > "$W/step_${cfg}_${v}.txt" 2>&1
  echo "$cfg $v rc=$? $(date -u +%T)" >> "$OUT/log.txt"
  tar -cf "$OUT/results.tar" -C "$W" .
done
tail -40 "$OUT/log.txt"
