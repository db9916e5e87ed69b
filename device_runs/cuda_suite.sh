#!/usr/bin/env bash
# The CUDA test suite on the H200 (the final code), and the FiveOps launch-count probe.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
python3 -c "import torch, triton, transformers; print(torch.__version__, triton.__version__, transformers.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"
timeout 60 python3 device_runs/fiveops_probe.py > "$OUT/fiveops_probe.txt" 2>&1; tail -4 "$OUT/fiveops_probe.txt"
timeout 420 python3 -m pytest -q -p no:warnings tests/test_rmsnorm.py tests/test_patching.py tests/test_signals.py \
  tests/test_scanner_families.py 2>&1 | tee "$OUT/cuda_tests.txt" | tail -15
