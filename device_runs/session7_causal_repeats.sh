#!/usr/bin/env bash
# Seventh session, evidence for the next: the is_causal rows (post 1 §六, post 2 §6.2) rest on 2-3 runs.
# More fresh-process runs, through the package's CLI as a reader would run it (12 timed steps after 3).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
for r in 1 2; do
  for c in qwen3_0.6b_8l qwen3_1.7b_6l; do
    for v in compile_causal compile_causal_flce; do
      timeout 120 python3 -m qwen3_fusion.train_step --config $c --variant $v --steps 15 2>/dev/null | tail -1 \
        | sed "s/^/run $r: /" | tee -a "$OUT/causal_repeats.txt"
    done
  done
done
