#!/usr/bin/env bash
# Fourteenth session: the side measurements the posts cite, now in the package (qwen3_fusion.bench_probes),
# re-measured with the one command a reader would run. Each probe writes $OUT/h200_<file>.json.
# bash device_runs/session14_probes.sh in_flight,casts,unseen,multistage
set -u
source device_runs/reader_env.sh
python3 -m qwen3_fusion.bench --out "$OUT" --probe "$1" 2>&1 | tee "$OUT/probes_${1//,/_}.log" \
  | grep -v " us$\| copy$" | tail -30
