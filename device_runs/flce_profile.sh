#!/usr/bin/env bash
# One profiled training step of Liger's FLCE alone, beside HF eager and the full Liger patch (post 1
# §5.1 explains FLCE's slowdown from its own kernels, not from the full patch's), both configs.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
timeout 300 python3 device_runs/liger_full_probe.py --groups=hf,flce_only,full --profile=flce_only \
  --name=h200_flce_profile 2>&1 | grep -v "Backend impl" | tail -12
