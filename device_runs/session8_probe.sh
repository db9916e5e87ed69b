#!/usr/bin/env bash
# Eighth session: more same-process runs of the rows both posts compare (default compile, compile with
# sdpa is_causal, that plus Liger FLCE at chunk_mem_const 16, Liger's full patch at 16), in the probe
# harness of runs 1-16 (device_runs/flce_chunks.py, one fresh process per config and run).
# Usage (on the H200): bash device_runs/session8_probe.sh RUN  ->  $OUT/h200_flce_chunks_<config>_run<RUN>.json
set -u
run=$1
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
python3 -c "import torch, triton, transformers, liger_kernel; print(torch.__version__, triton.__version__, transformers.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions_run$run.txt"
for cfg in "" "--1.7b"; do
  timeout 270 python3 device_runs/flce_chunks.py --run=$run $cfg --todo=compile,compile_causal,compile_causal_flce:16,full:16 \
    2>&1 | grep -v Warning | tail -6 | tee -a "$OUT/log_run$run.txt"
done
