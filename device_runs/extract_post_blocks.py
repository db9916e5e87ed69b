"""Write each woven post's python and bash blocks, in order, for the GPU machine.

python device_runs/extract_post_blocks.py  ->  device_runs/post_blocks/<slug>.json
[[line, language, code], ...]; device_runs/run_post_blocks.py runs one such file.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from buildlib.checks import GPU_NOTE_PREFIX  # noqa: E402
from buildlib.markdown import fences  # noqa: E402


def main() -> None:
    out = ROOT / "device_runs" / "post_blocks"
    out.mkdir(exist_ok=True)
    for post in sorted((ROOT / "posts").glob("*.md")):
        text = post.read_text(encoding="utf-8")
        lines = text.split("\n")
        blocks = []
        for f in fences(text):
            if f.lang not in ("python", "bash"):
                continue
            k = f.line - 2
            while k >= 0 and not lines[k].strip():
                k -= 1
            if k >= 0 and lines[k].startswith(GPU_NOTE_PREFIX) and "网络" in lines[k]:
                continue  # needs the Hugging Face Hub: no network on the GPU machine
            blocks.append((f.line, f.lang, f.body))
        (out / f"{post.stem}.json").write_text(json.dumps(blocks, indent=1), encoding="utf-8")
        print(f"{post.stem}: {len(blocks)} blocks")


if __name__ == "__main__":
    main()
