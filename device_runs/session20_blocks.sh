#!/usr/bin/env bash
# Twentieth session, after the cold-read edits: both posts' python and bash blocks in order, as a reader runs
# them (post 2's pip-install block and its long benchmark commands skipped), on whichever card comes.
# Usage (device, carry [".whl"]): SKIP_BLOCKS=298,1103 bash device_runs/session20_blocks.sh
set -u
source device_runs/reader_env.sh > "$OUT/log.txt" 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader >> "$OUT/log.txt"
mkdir -p /tmp/reader_p1 /tmp/reader_p2
(cd /tmp/reader_p2 && timeout 280 python3 "$OLDPWD/device_runs/run_post_blocks.py" \
  "$OLDPWD/device_runs/post_blocks/triton-rmsnorm-kernel.json") > "$OUT/blocks_triton-rmsnorm-kernel.txt" 2>&1
echo "post 2 blocks rc=$?" >> "$OUT/log.txt"
(cd /tmp/reader_p1 && SKIP_BLOCKS= timeout 280 python3 "$OLDPWD/device_runs/run_post_blocks.py" \
  "$OLDPWD/device_runs/post_blocks/qwen3-fusion-reading.json") > "$OUT/blocks_qwen3-fusion-reading.txt" 2>&1
echo "post 1 blocks rc=$?" >> "$OUT/log.txt"
grep -a "^ok\|^skip\|^FAIL" "$OUT"/blocks_*.txt | tail -60
tail -5 "$OUT/log.txt"
