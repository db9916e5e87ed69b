#!/usr/bin/env bash
# Sixteenth session's plan (prepared on the CPU; each part fits one 10-minute call):
#   part 1: session15.sh (post 1's CUDA/CPU training scans, the sdpa_mask probe), then the
#           triton_op probe, now in the package (bench_steps), replacing device_runs/session10_triton_op.py
#   part 2: the training steps again (compile_ours after the _op_backward refactor) and the step probes
#           that replace device_runs/session9_probe.py (step_host) and liger_full_probe.py/flce_chunks.py
#           (liger_groups); liger-kernel travels in .whl
# Usage (device): bash device_runs/session16.sh 1|2   (carry [".whl"])
set -u
source device_runs/reader_env.sh
case "${1:-1}" in
  1)
    bash device_runs/session15.sh
    python3 -m qwen3_fusion.bench --out "$OUT" --probe triton_op 2>&1 | tee "$OUT/probe_triton_op.log" | tail -8
    ;;
  2)
    python3 -m qwen3_fusion.bench --out "$OUT" --only train 2>&1 | tee "$OUT/bench_train.log" | tail -12
    python3 -m qwen3_fusion.bench --out "$OUT" --probe step_host,liger_groups 2>&1 | tee "$OUT/probe_steps.log" | tail -20
    ;;
esac
