#!/usr/bin/env bash
# Training section again, with Liger's defaults: LigerRMSNorm in_place=True and Liger's whole Qwen3
# patch (apply_liger_kernel_to_qwen3: RoPE, SwiGLU, RMSNorm, fused linear cross-entropy), and the
# host issue time as the median of 5 samples. Merges into a copy of the committed h200.json.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
mkdir -p "$OUT/results" && cp src_literate/results/h200.json "$OUT/results/"
timeout 520 python3 -m qwen3_fusion.bench --only train --out "$OUT/results" 2>&1 | tee "$OUT/bench_log.txt" \
  | grep "train\|wrote\|MISS\|Error\|error" | head -60
