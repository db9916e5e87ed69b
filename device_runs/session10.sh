#!/usr/bin/env bash
# Tenth session's one GPU call: the probe (device_runs/session10_probe.py), then one Nsight Compute run.
set -u
source device_runs/reader_env.sh
timeout 420 python3 device_runs/session10_probe.py 2>&1 | tee "$OUT/probe.log" | grep -v "^ptx" | tail -60
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
if [ -n "$NCU" ]; then
  timeout 150 "$NCU" --clock-control none -k 'regex:rms_norm_backward_kernel|rmsnorm_bwd_kernel' \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
    python3 device_runs/session10_ncu.py > "$OUT/ncu.txt" 2>&1
  echo "ncu rc=$?"; grep -E "rms_norm_backward_kernel|rmsnorm_bwd_kernel|DRAM Throughput|Memory Throughput|Duration|Long Scoreboard|Stall|==ERR|==PROF==" "$OUT/ncu.txt" | head -60
fi
