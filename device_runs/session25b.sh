#!/usr/bin/env bash
# Session 25, trimmed call for a short device budget: only session25.sh's step (2), compile_causal against
# compile_causal_qk_rope after the graph-break fix, three interleaved rounds at qwen3_0.6b_8l.
# Usage (device, carry [".whl"]): bash device_runs/session25b.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
W=/tmp/s25b && mkdir -p "$W" && cp "$OUT/versions.txt" "$W/"
T0=$SECONDS
python3 -c "import json; from qwen3_fusion import bench_common as bc; print(json.dumps({'meta': bc.environment('meta')}))" > "$W/meta.json"
for r in 1 2 3; do for v in compile_causal compile_causal_qk_rope; do step_round "$W" qwen3_0.6b_8l $v $r; done; done
python3 device_runs/steps_to_json.py "$W" "$W/qk_rope_compile_steps.json" \
  "python -m qwen3_fusion.train_step --config qwen3_0.6b_8l --variant {compile_causal,compile_causal_qk_rope}, 3 interleaved rounds" "$W/meta.json" >> "$OUT/log.txt" 2>&1
tar -cf "$OUT/results.tar" -C "$W" .
tail -8 "$OUT/log.txt"; grep -h "median step" "$W"/step_*.txt
