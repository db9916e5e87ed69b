#!/usr/bin/env bash
# Prepared in session 20 for the next GPU session: the fused q/k norm + RoPE kernels, not yet timed.
#   qk_rope   python -m qwen3_fusion.bench --probe qk_rope (HF eager / torch.compile / fused, fwd and bwd, bf16)
#   steps     train_step at both configs: hf, qk_rope, compile_causal, compile_causal_qk_rope
# Both posts' blocks: a call of their own, `SKIP_BLOCKS=... bash device_runs/session20_blocks.sh` (it writes
# $OUT/log.txt itself); re-extract first (python device_runs/extract_post_blocks.py) and set SKIP_BLOCKS to post 2's
# pip-install and long-benchmark fence lines.
# Usage (device, carry [".whl"]): bash device_runs/session21.sh [STEP ...]   (default: qk_rope steps)
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s21 && mkdir -p "$W"
nvidia-smi --query-gpu=name --format=csv,noheader >> "$OUT/log.txt"
for step in ${*:-qk_rope steps}; do
  echo "=== $step $(date -u +%T)" >> "$OUT/log.txt"
  case "$step" in
    qk_rope) timeout 300 python3 -m qwen3_fusion.bench --out "$W" --probe qk_rope >> "$OUT/log.txt" 2>&1 ;;
    steps)
      for cfg in qwen3_0.6b_8l qwen3_1.7b_6l; do
        for v in hf qk_rope compile_causal compile_causal_qk_rope; do
          timeout 240 python3 -m qwen3_fusion.train_step --config "$cfg" --variant "$v" > "$W/step_${cfg}_${v}.txt" 2>&1
          echo "$cfg $v rc=$? $(date -u +%T)" >> "$OUT/log.txt"
          tar -cf "$OUT/results.tar" -C "$W" .
        done
      done ;;
    *) echo "unknown step $step" >> "$OUT/log.txt" ;;
  esac
  echo "=== $step done $(date -u +%T)" >> "$OUT/log.txt"
  tar -cf "$OUT/results.tar" -C "$W" .
done
tail -40 "$OUT/log.txt"
