#!/usr/bin/env bash
# Fifteenth session: (1) post 1's training scan with the Inductor column from the CUDA backend and the CPU
# one, re-run after the byte-model fix for indexed reads (the committed files predate it); (2) the new
# sdpa_mask probe: sdpa forward + backward with the compile-time bool mask vs is_causal, kernels by name.
set -u
source device_runs/reader_env.sh
for b in cuda cpu; do
  timeout 200 qwen3-fusion-scan --config qwen3-0.6b --layers 2 --seq 2048 --batch 4 \
    --device meta --train --inductor $b --json > "$OUT/scan_inductor_$b.json" 2> "$OUT/scan_$b.err"
  echo "scan $b rc=$?"; tail -3 "$OUT/scan_$b.err"
done
python3 -m qwen3_fusion.bench --out "$OUT" --probe sdpa_mask 2>&1 | tee "$OUT/probe_sdpa_mask.log" | tail -12
