#!/usr/bin/env bash
# (1) torch.compile's RMSNorm with the mix-order reduction's multi-stage loop allowed (torch 2.13's
# default) vs torch 2.11's default, beside our kernel; (2) the post-1 scan of a Qwen3-0.6B training
# step (2 layers, 4x2048, meta) with the Inductor column from the CUDA backend and from the CPU one.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
[ "${1:-}" = scan ] || timeout 200 python3 device_runs/compile_multistage.py 2>&1 | grep -v Warning | tail -60
for b in cuda cpu; do
  timeout 150 python3 -m qwen3_fusion.scan_cli --config qwen3-0.6b --layers 2 --seq 2048 --batch 4 \
    --device meta --train --inductor $b --json > "$OUT/scan_inductor_$b.json" 2> "$OUT/scan_$b.err"
  echo "scan $b rc=$?"; tail -3 "$OUT/scan_$b.err"
done
