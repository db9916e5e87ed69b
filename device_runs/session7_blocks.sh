#!/usr/bin/env bash
# Seventh session, last H200 call: the CUDA tests of the kernel, the scanner (its Inductor column with the
# CUDA backend included), the patching and the training variants; then both posts' python and bash blocks in
# order, as a reader pasting them on a GPU machine would.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
mkdir -p /tmp/shim && printf '#!/bin/sh\nexec python3 "$@"\n' > /tmp/shim/python \
  && printf '#!/bin/sh\nexec python3 -c "import sys; from qwen3_fusion.signals import main; sys.exit(main())" "$@"\n' > /tmp/shim/qwen3-fusion-scan \
  && chmod +x /tmp/shim/* && export PATH=/tmp/shim:$PATH
python3 -c "import torch, triton, transformers; print(torch.__version__, triton.__version__, transformers.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"
timeout 200 python3 -m pytest -q -p no:warnings tests/test_rmsnorm.py tests/test_signals.py tests/test_patching.py tests/test_train_step.py \
  2>&1 | tee "$OUT/cuda_tests.txt" | tail -6
for post in triton-rmsnorm-kernel qwen3-fusion-reading; do
  mkdir -p /tmp/reader_$post && (cd /tmp/reader_$post && timeout 150 python3 "$OLDPWD/device_runs/run_post_blocks.py" "$OLDPWD/device_runs/post_blocks/$post.json") \
    > "$OUT/blocks_$post.txt" 2>&1; echo "$post rc=$?"; grep -a "^ok\|^skip\|^FAIL" "$OUT/blocks_$post.txt" | tail -40
done
