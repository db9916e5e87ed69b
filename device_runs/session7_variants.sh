#!/usr/bin/env bash
# Seventh session, first H200 call: the package's new training variants run as post 1 tells a reader to
# run them (python -m qwen3_fusion.train_step --variant ...), next to hf and compile_causal.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
python3 -c "import torch, triton, transformers, liger_kernel; print(torch.__version__, triton.__version__, transformers.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"
for v in hf flce compile_causal compile_causal_flce; do
  timeout 200 python3 -m qwen3_fusion.train_step --variant $v --steps 15 2>&1 | tail -3 | tee -a "$OUT/train_step_variants.txt"
done
timeout 60 python3 -m qwen3_fusion.train_step --variant flce --chunk-mem-const 0 2>&1 | tail -1 | tee -a "$OUT/train_step_variants.txt"
