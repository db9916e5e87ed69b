#!/usr/bin/env bash
# Eighth session, after the rewrites of both posts: every python and bash block of both posts in order,
# as a reader pasting them on a GPU machine would (python device_runs/extract_post_blocks.py first).
set -u
source device_runs/reader_env.sh
run_post_blocks 400  # post 1 alone takes ~185 s on a fresh machine
