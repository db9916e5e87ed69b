#!/usr/bin/env bash
# Second device call of the Kernel v3 bench: the training, profile, Inductor and trace sections
# merged into call 1's results, then host-time cProfile and the five-op kernel list (probe), then
# the backward sweep in the time left. Everything lands in $OUT.
set -u
start=$SECONDS
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
mkdir -p "$OUT/results"
cp src_literate/results/h200.json "$OUT/results/"
timeout 420 python3 -m qwen3_fusion.bench --out "$OUT/results" --only profile,inductor,trace,train \
  --command "python build.py bench --only profile,inductor,trace,train" 2>&1 | tee "$OUT/bench_log.txt" | grep "^\[\|MET\|MISS\|train\|^[a-z_]* *[0-9]" | tail -40
echo "bench took $(( SECONDS - start )) s"
timeout 60 python3 device_runs/kernel_v3_probe.py --out "$OUT/probe" --only host,fiveops 2>&1 | tail -12
left=$(( 570 - (SECONDS - start) ))
echo "${left} s left for the sweep"
[ $left -gt 40 ] && timeout $left python3 -m qwen3_fusion.bench --sweep --sweep-budget $(( left - 25 )) --out "$OUT/results" 2>&1 | grep "^\[" | tail -20
