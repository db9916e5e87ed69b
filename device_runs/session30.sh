#!/usr/bin/env bash
# Session 30, one H200 call: the H100-only figures the posts still carry, re-measured on the H200, most
# important first so that a timeout keeps it: (1) compile_causal against compile_causal_qk_rope after the
# graph-break fix, three interleaved rounds (post 2, 7.4); (2) post 1's 2-layer training scan with
# --inductor cuda (§五's inductor column); (3) what Inductor makes of q/k norm + RoPE (post 1, 5.2); (4) sdpa
# with the compile-time mask vs is_causal (post 1, §六); (5) the atomic-dW probe, three runs (post 2, 5.2);
# (6) the backward split by kernel (post 2, 2.2 and 2.6); (7) the GPU-only tests; (8) the host-time table (post 2,
# 6.2) with the host CPU recorded. Each step is skipped when
# the call's 600 s would not hold it; results.tar is re-packed after each step.
# Usage (device, carry [".whl"]): bash device_runs/session30.sh  (supersedes the never-run session27.sh, 27b.sh)
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s30 && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/log.txt"
pack() { echo "$1 rc=$2 t=$((SECONDS - T0))" >> "$OUT/log.txt"; tar -cf "$OUT/results.tar" -C "$W" .; }
compiled_pair_rounds "$W"
if (( SECONDS - T0 < 420 )); then
  timeout $((560 - (SECONDS - T0))) qwen3-fusion-scan --config qwen3-0.6b --layers 2 --seq 2048 --batch 4 --device meta \
    --train --inductor cuda --json > "$W/scan_inductor_cuda.json" 2> "$W/scan.err"
  pack scan $?
fi
if (( SECONDS - T0 < 480 )); then
  OUT_SAVE=$OUT; OUT=$W/qk_inductor timeout 90 python3 device_runs/session28_qk_inductor.py > "$W/qk_inductor.log" 2>&1
  rc=$?; OUT=$OUT_SAVE; pack qk_inductor $rc
fi
if (( SECONDS - T0 < 520 )); then
  timeout 40 python3 -m qwen3_fusion.bench --probe sdpa_mask --out "$W" > "$W/sdpa_mask.log" 2>&1; pack sdpa_mask $?
fi
for r in 1 2 3; do
  if (( SECONDS - T0 < 545 )); then
    mkdir -p "$W/atomic$r"
    timeout 30 python3 -m qwen3_fusion.bench --probe atomic_dw --out "$W/atomic$r" > "$W/atomic$r/atomic_dw.log" 2>&1; pack atomic$r $?
  fi
done
if (( SECONDS - T0 < 520 )); then  # the backward split by kernel (2.2's fill, 2.6's one Triton kernel): H100-only so far
  timeout 60 python3 -m qwen3_fusion.bench --probe bwd_split --out "$W" > "$W/bwd_split.log" 2>&1; pack bwd_split $?
fi
if (( SECONDS - T0 < 500 )); then
  timeout 80 python3 -m pytest -q -p no:cacheprovider tests/test_qk_norm_rope.py \
    "tests/test_rmsnorm.py::test_cached_launch_matches_triton_launch" "tests/test_rmsnorm.py::test_atomic_dw_matches_reference" > "$W/pytest_gpu.txt" 2>&1
  pack pytest $?
fi
if (( SECONDS - T0 < 520 )); then  # 6.2's host-time table again, now with the host CPU in its meta
  mkdir -p "$W/host"
  timeout 70 python3 -m qwen3_fusion.bench --only host --out "$W/host" > "$W/host/host.log" 2>&1; pack host $?
fi
tail -16 "$OUT/log.txt"; grep -h "median step" "$W"/step_*.txt; tail -2 "$W/pytest_gpu.txt" 2>/dev/null
