#!/usr/bin/env bash
# One device call of the Kernel v3 bench: SECTIONS (bench --only), then, in the time left, the
# CUDA tests or a config sweep. Usage on the device: bash device_runs/bench_v3_call.sh SECTIONS EXTRA
# EXTRA: tests | sweep | none. Everything lands in $OUT (results/ holds the bench's files).
set -u
start=$SECONDS
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
mkdir -p "$OUT/results"
grep -qs "\"schema\": 3" src_literate/results/h200.json && cp src_literate/results/h200.json "$OUT/results/"  # --only merges into a v3 file
timeout 500 python3 -m qwen3_fusion.bench --out "$OUT/results" --only "$1" \
  --command "python build.py bench --only $1" 2>&1 | tee "$OUT/bench_log.txt" | grep -v "^host\|CUDA-graph"
left=$(( 575 - (SECONDS - start) ))
echo "bench took $(( SECONDS - start )) s; ${left} s left for $2"
if [ "$2" = tests ] && [ $left -gt 30 ]; then
  timeout $left python3 -m pytest tests/test_rmsnorm.py tests/test_patching.py tests/test_signals.py -q -x -p no:warnings 2>&1 | tee "$OUT/tests.txt" | tail -6
elif [ "$2" = sweep ] && [ $left -gt 40 ]; then
  timeout $left python3 -m qwen3_fusion.bench --sweep --sweep-budget $(( left - 30 )) --out "$OUT/results" 2>&1 | grep "^\[" | tee "$OUT/sweep_log.txt" | tail -30
fi
