#!/usr/bin/env bash
# The final Kernel v3 device call: `python build.py bench` (every section, one run, a fresh file),
# then the CUDA tests in the time left. Everything lands in $OUT (results/ holds the bench's files).
set -u
start=$SECONDS
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
timeout 440 python3 -m qwen3_fusion.bench --out "$OUT/results" 2>&1 | tee "$OUT/bench_log.txt" \
  | grep "^\[.*\(done\|train\|wrote\)\|MISS\|met$\|^  N=\|^\(hf\|ours\|liger\|compile\)"
left=$(( 560 - (SECONDS - start) ))
echo "bench took $(( SECONDS - start )) s; ${left} s left for the tests"
[ $left -gt 30 ] && timeout $left python3 -m pytest tests/test_rmsnorm.py tests/test_patching.py tests/test_signals.py -q -p no:warnings 2>&1 | tee "$OUT/tests.txt" | tail -5
