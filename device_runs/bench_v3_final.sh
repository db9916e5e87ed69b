#!/usr/bin/env bash
# The final Kernel v3 device call, sized to the device time left: the GPU tests of the kernels
# (launch cache, strides, reference shapes), then `python build.py bench` (every section, one run,
# a fresh results file). Everything lands in $OUT (results/ holds the bench's files).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
timeout 45 python3 -m pytest tests/test_rmsnorm.py -q -p no:warnings \
  -k "cached or strided or non_contiguous or kernels_match or rstd or device" 2>&1 | tee "$OUT/tests.txt" | tail -3
timeout 320 python3 -m qwen3_fusion.bench --out "$OUT/results" 2>&1 | tee "$OUT/bench_log.txt" \
  | grep "^\[.*\(done\|train\|wrote\)\|MISS\|met$\|^  N=\|^\(hf\|ours\|liger\|compile\)"
# why the scanner's CUDA profile of FiveOps counts 6 launches for 5 ops (a probe, ~10 s)
timeout 60 python3 device_runs/fiveops_probe.py > "$OUT/fiveops_probe.txt" 2>&1; tail -3 "$OUT/fiveops_probe.txt"
