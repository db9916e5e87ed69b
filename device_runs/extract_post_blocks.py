"""Write each woven post's python and bash blocks, in order, as one runner script for the GPU.

python device_runs/extract_post_blocks.py  ->  device_runs/post_blocks/<slug>.py
Each runner executes the post's python blocks in one namespace, as a reader pasting them would,
and the bash blocks with a time limit; it prints one line per block (ok / skip / FAIL) and stops
at the first failure that is not a missing optional package or tool.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from buildlib.checks import GPU_NOTE_PREFIX  # noqa: E402
from buildlib.markdown import fences  # noqa: E402

RUNNER = '''import subprocess, sys, traceback
BLOCKS = json.loads({blocks!r})
ns = {{"__name__": "__main__"}}
for line, lang, code in BLOCKS:
    where = "{slug}.md:%d" % line
    if lang == "bash":
        tool = code.split()[0] if code.split() else ""
        r = subprocess.run(["bash", "-c", "command -v " + tool], capture_output=True)
        if r.returncode:
            print("skip", where, "(no", tool, "here)", flush=True)
            continue
        try:
            r = subprocess.run(["bash", "-c", code], capture_output=True, text=True, timeout=240)
        except subprocess.TimeoutExpired:
            print("FAIL", where, "timed out", flush=True); sys.exit(1)
        print("ok  " if r.returncode == 0 else "FAIL", where, (r.stdout + r.stderr)[-800:], flush=True)
        if r.returncode:
            sys.exit(1)
        continue
    # Triton reads a kernel's source through inspect: each block runs from a file of its own
    path = "{slug}_L%d.py" % line
    with open(path, "w", encoding="utf-8") as f:
        f.write(code + chr(10))
    try:
        exec(compile(code, path, "exec"), ns)
        print("ok  ", where, flush=True)
    except ModuleNotFoundError as e:
        print("skip", where, e, flush=True)
    except Exception:
        print("FAIL", where, flush=True)
        traceback.print_exc()
        sys.exit(1)
'''


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
        slug = post.stem
        script = "import json\n" + RUNNER.format(blocks=json.dumps(blocks), slug=slug)
        (out / f"{slug}.py").write_text(script, encoding="utf-8")
        print(f"{slug}: {len(blocks)} blocks")


if __name__ == "__main__":
    main()
