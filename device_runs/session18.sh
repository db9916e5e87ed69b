#!/usr/bin/env bash
# Eighteenth session: the device tool may run a call for an H200 on an H100 (it did in session 17). On an H200 run
# the H200 re-runs the posts wait for; on anything else run what is card-agnostic (both posts' blocks as a reader
# runs them) and the one probe the H100 has not run yet, so that no call repeats session 17's H100 work.
# Usage (device, carry [".whl"]): bash device_runs/session18.sh [STEP ...]   (steps override the choice)
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [ $# -gt 0 ]; then steps="$*"
elif [[ "$gpu" == *H200* ]]; then steps="inflight scans steps triton_op trace128"
else steps="blocks inflight"; fi
echo "gpu: $gpu; steps: $steps"
bash device_runs/session17.sh $steps
