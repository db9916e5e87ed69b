#!/usr/bin/env bash
# Post 2's blocks in order on the H200, the long benchmark block (line $1: the full bench plus six
# training runs, over ten minutes) skipped: the same commands made the committed results.
set -u
source device_runs/reader_env.sh
mkdir -p /tmp/reader_p2 && (cd /tmp/reader_p2 && SKIP_BLOCKS="$1" timeout 500 python3 "$OLDPWD/device_runs/run_post_blocks.py" \
  "$OLDPWD/device_runs/post_blocks/triton-rmsnorm-kernel.json") > "$OUT/blocks_triton-rmsnorm-kernel.txt" 2>&1
echo "rc=$?"; grep -a "^ok\|^skip\|^FAIL" "$OUT/blocks_triton-rmsnorm-kernel.txt" | cut -c1-200 | tail -40
