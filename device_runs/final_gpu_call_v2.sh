#!/usr/bin/env bash
# The last H200 call of the fifth session: the CUDA tests of the kernel and the scanner (the Inductor
# column with its CUDA backend included), then both posts' python and bash blocks in order, as a reader
# pasting them on a GPU machine would.
set -u
source device_runs/reader_env.sh
timeout 150 python3 -m pytest -q -p no:warnings tests/test_rmsnorm.py tests/test_signals.py \
  2>&1 | tee "$OUT/cuda_tests.txt" | tail -6
run_post_blocks 150
