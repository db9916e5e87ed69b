#!/usr/bin/env bash
# Fourteenth session: the side measurements post 2 cites, now in the package (qwen3_fusion.bench_probes),
# re-measured with the one command a reader would run. Each probe writes $OUT/h200_<file>.json.
set -u
source device_runs/reader_env.sh
python3 -m qwen3_fusion.bench --out "$OUT" --probe in_flight,casts,unseen,multistage 2>&1 | tee "$OUT/probes.log" \
  | grep -v " us$\| copy$" | tail -30
