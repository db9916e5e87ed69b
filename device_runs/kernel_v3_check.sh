#!/usr/bin/env bash
# Last device call of the session (little device time left): the GPU tests of the retuned kernel
# and its launcher, then the host section on the final code into $OUT/results.
set -u
python3 - <<'PY' > "$OUT/qwen3_rmsnorm_5_17.txt" 2>&1
import inspect, transformers
from transformers.models.qwen3 import modeling_qwen3 as m
print("transformers", transformers.__version__)
print(inspect.getsource(m.Qwen3RMSNorm))
PY
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
timeout 70 python3 -m pytest tests/test_rmsnorm.py -q -p no:warnings \
  -k "cached or strided or non_contiguous or kernels_match or rstd or device or autograd" 2>&1 | tee "$OUT/tests.txt" | tail -3
timeout 80 python3 -m qwen3_fusion.bench --out "$OUT/results" --only host \
  --command "python build.py bench --only host" 2>&1 | tee "$OUT/bench_log.txt" | grep "^\[.*host "
