#!/usr/bin/env bash
# Seventh session, last H200 call: the CUDA tests of the kernel, the scanner (its Inductor column with the
# CUDA backend included), the patching and the training variants; then both posts' python and bash blocks in
# order, as a reader pasting them on a GPU machine would.
set -u
source device_runs/reader_env.sh
timeout 200 python3 -m pytest -q -p no:warnings tests/test_rmsnorm.py tests/test_signals.py tests/test_patching.py tests/test_train_step.py \
  2>&1 | tee "$OUT/cuda_tests.txt" | tail -6
run_post_blocks 150
