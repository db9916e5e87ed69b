#!/usr/bin/env bash
# The last H200 call of the session: the CUDA test suite on the final code (FiveOps launch count,
# the Inductor column on torch 2.11, MoE training scans on transformers 5.17), then both posts'
# python and bash blocks in order, as a reader pasting them on a GPU machine would.
set -u
source device_runs/reader_env.sh
timeout 200 python3 -m pytest -q -p no:warnings tests/test_rmsnorm.py tests/test_patching.py tests/test_signals.py \
  tests/test_scanner_families.py 2>&1 | tee "$OUT/cuda_tests.txt" | tail -6
run_post_blocks 180
