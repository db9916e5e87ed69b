"""Run one post's blocks on the GPU machine, in order, as a reader pasting them would.

python device_runs/run_post_blocks.py device_runs/post_blocks/<slug>.json   (from a scratch folder)
The python blocks share one namespace; the bash blocks run with a time limit. One line per block
(ok / skip / FAIL); it stops at the first failure that is not a missing optional package or tool.
"""

import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

blocks_file = Path(sys.argv[1])
slug = blocks_file.stem
ns = {"__name__": "__main__"}
for line, lang, code in json.loads(blocks_file.read_text(encoding="utf-8")):
    where = f"{slug}.md:{line}"
    if str(line) in os.environ.get("SKIP_BLOCKS", "").split(","):  # a long benchmark, run on its own
        print("skip", where, "(SKIP_BLOCKS)", flush=True)
        continue
    if lang == "bash":
        tool = code.split()[0] if code.split() else ""
        if subprocess.run(["bash", "-c", "command -v " + tool], capture_output=True).returncode:
            print("skip", where, "(no", tool, "here)", flush=True)
            continue
        try:
            r = subprocess.run(["bash", "-c", code], capture_output=True, text=True, timeout=240)
        except subprocess.TimeoutExpired:
            print("FAIL", where, "timed out", flush=True)
            sys.exit(1)
        print(
            "ok  " if r.returncode == 0 else "FAIL", where, (r.stdout + r.stderr)[-800:], flush=True
        )
        if r.returncode:
            sys.exit(1)
        continue
    # Triton reads a kernel's source through inspect: each block runs from a file of its own
    path = f"{slug}_L{line}.py"
    Path(path).write_text(code + "\n", encoding="utf-8")
    try:
        exec(compile(code, path, "exec"), ns)
        print("ok  ", where, flush=True)
    except ModuleNotFoundError as e:
        print("skip", where, e, flush=True)
    except Exception:
        print("FAIL", where, flush=True)
        traceback.print_exc()
        sys.exit(1)
