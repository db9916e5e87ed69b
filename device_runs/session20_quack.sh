#!/usr/bin/env bash
# Twentieth session: Quack 0.6.4 (standalone, CuTe DSL 4.6.2) and Liger's CuTe DSL backend timed beside ours.
# The CuTe DSL's CUDA 13 library wheel (88 MB) is over one call's carry limit. Tried 2026-12-05 19:44: a call
# carrying the first half in .qwa/, then this one carrying the second half in .qwb/ on the same warm machine. It
# FAILED: a path not named in a call's carry is gone in the next call, so .qwa/ was missing and nothing imported
# (the probe then timed only ours and the installed peers; that output was discarded). The wheel's contents as
# tar.xz are 58 MiB, and with the small wheels still over 64 MiB: next time trim or find another route.
# Usage (device, carry [".whl", ".qwb"], after a call that carried ".qwa"): bash device_runs/session20_quack.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader >> "$OUT/log.txt"
ls -la .qwa .qwb >> "$OUT/log.txt" 2>&1
mkdir -p /tmp/qwh && cat .qwa/part_aa .qwb/part_ab > /tmp/qwh/nvidia_cutlass_dsl_libs_cu13-4.6.2-cp312-cp312-manylinux_2_28_x86_64.whl \
  && cp .qwb/*.whl /tmp/qwh/ && python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site_q /tmp/qwh/*.whl >> "$OUT/log.txt" 2>&1
export PYTHONPATH=/tmp/site_q:$PYTHONPATH
python3 -c "import cutlass, quack; print('cutlass', cutlass.__version__ if hasattr(cutlass, '__version__') else '?', 'quack', quack.__version__)" >> "$OUT/log.txt" 2>&1
timeout 450 python3 device_runs/quack_probe.py "$OUT" >> "$OUT/log.txt" 2>&1
echo "quack_probe rc=$?" >> "$OUT/log.txt"
tail -40 "$OUT/log.txt"
