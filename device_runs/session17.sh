#!/usr/bin/env bash
# Seventeenth session (first H200 since session 14): the GPU work prepared in sessions 15-16, step by step,
# everything packed into $OUT/results.tar after each step (a call that runs past its limit still returns what
# finished) and one log, $OUT/log.txt, so that the eight-file limit on what comes back holds.
#   scans      post 1's training scans, Inductor column from the CUDA and the CPU backends
#   sdpa       the sdpa_mask probe (compile-time bool mask vs is_causal)
#   triton_op  our norm as a torch.library.triton_op pair under whole-model compile
#   train      the training-step section of the bench, merged into a copy of the committed h200.json
#   steps      the step_host and liger_groups probes
#   inflight   the backward in-flight probe (bytes in flight counted with S - 1 pipeline stages) and gradient errors
#   trace128   post 1's decoder-layer trace at 1 x 128 (the launch-bound case) beside the 4 x 2048 one
#   blocks     both posts' blocks in order (post 2's pip-install and long-benchmark blocks skipped)
# Usage (device, carry [".whl"]): bash device_runs/session17.sh STEP [STEP ...]
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s17 && mkdir -p "$W" && cp -n src_literate/results/h200.json "$W/"
pack() { tar -cf "$OUT/results.tar" -C "$W" . ; }
for step in "$@"; do
  echo "=== $step $(date -u +%T)" >> "$OUT/log.txt"
  case "$step" in
    scans)
      for b in cuda cpu; do
        cmd="qwen3-fusion-scan --config qwen3-0.6b --layers 2 --seq 2048 --batch 4 --device meta --train --inductor $b --json"
        timeout 200 $cmd > "$W/scan_inductor_$b.json" 2>> "$OUT/log.txt"
        echo "scan $b rc=$?" >> "$OUT/log.txt"
        # the environment (GPU, versions, date) into the file's meta, as every results file carries it
        python3 device_runs/scan_meta.py "$W/scan_inductor_$b.json" "$cmd" >> "$OUT/log.txt" 2>&1
      done ;;
    sdpa) python3 -m qwen3_fusion.bench --out "$W" --probe sdpa_mask >> "$OUT/log.txt" 2>&1 ;;
    triton_op) python3 -m qwen3_fusion.bench --out "$W" --probe triton_op >> "$OUT/log.txt" 2>&1 ;;
    inflight) python3 -m qwen3_fusion.bench --out "$W" --probe in_flight >> "$OUT/log.txt" 2>&1 ;;
    train) python3 -m qwen3_fusion.bench --out "$W" --only train >> "$OUT/log.txt" 2>&1 ;;
    steps) python3 -m qwen3_fusion.bench --out "$W" --probe step_host,liger_groups >> "$OUT/log.txt" 2>&1 ;;
    trace128) python3 -m qwen3_fusion.trace_capture --out "$W/t128" --batch 1 --seq 128 >> "$OUT/log.txt" 2>&1 ;;
    blocks)
      mkdir -p /tmp/reader_p1 /tmp/reader_p2
      (cd /tmp/reader_p2 && SKIP_BLOCKS=221,1053 timeout 280 python3 "$OLDPWD/device_runs/run_post_blocks.py" \
        "$OLDPWD/device_runs/post_blocks/triton-rmsnorm-kernel.json") > "$W/blocks_triton-rmsnorm-kernel.txt" 2>&1
      echo "post 2 blocks rc=$?" >> "$OUT/log.txt"; pack
      (cd /tmp/reader_p1 && timeout 280 python3 "$OLDPWD/device_runs/run_post_blocks.py" \
        "$OLDPWD/device_runs/post_blocks/qwen3-fusion-reading.json") > "$W/blocks_qwen3-fusion-reading.txt" 2>&1
      echo "post 1 blocks rc=$?" >> "$OUT/log.txt" ;;
    *) echo "unknown step $step" >> "$OUT/log.txt" ;;
  esac
  echo "=== $step done rc=$? $(date -u +%T)" >> "$OUT/log.txt"
  pack
done
tail -40 "$OUT/log.txt"
