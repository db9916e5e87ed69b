"""Session 24: the H100 calls' outputs -> src_literate/results/h100_qk_compile_diag.json and
h100_qk_rope_compile_steps.json. The compiled step with qk_norm_rope before and after moving patching's imports
out of the patched forward (Dynamo in torch 2.11 broke the graph at the lazy-module import).
Usage: python device_runs/session24_results.py
"""
import json
import pathlib
import re

D = pathlib.Path("device_runs/h100_2026-12-06_s24")
R = pathlib.Path("src_literate/results")


def graphs(path):
    """variant -> (graphs, breaks), and the first break's reason and where, from session24_breaks.py's output."""
    text = (D / path).read_text()
    counts = {m[0]: (int(m[1]), int(m[2])) for m in re.findall(r"^(\S+) graphs (\d+) breaks (\d+)$", text, re.M)}
    reason = re.search(r"^- reason: (.+)$", text, re.M)
    where = re.search(r"at <FrameSummary file \S+/(qwen3_fusion/\S+), line (\d+) in (\w+)>", text)
    return counts, (reason.group(1) if reason else None), (f"{where[1]}:{where[2]} ({where[3]})" if where else None)


def diag(path, breaks_path):
    d = json.loads((D / path).read_text())
    counts, reason, where = graphs(breaks_path)
    return d["meta"], {"graphs": {v: {"graphs": g, "breaks": b} for v, (g, b) in counts.items()},
                       "break_reason": reason, "break_at": where, "op_host_us": d["op_host_us"], "steps": d["steps"]}


meta, before = diag("diag/h100_qk_compile_diag.json", "breaks/breaks.txt")
meta_after, after = diag("fixed_diag/h100_qk_compile_diag.json", "fixed_diag/breaks.txt")
assert meta["gpu"] == meta_after["gpu"] and meta["torch"] == meta_after["torch"]
meta = dict(meta, command="bash device_runs/session24.sh (before), session24b.sh (breaks), session24c.sh (after)")
out = {"meta": meta, "before_fix": before, "after_fix": after,
       "fix": "patching.py imports modeling_qwen3 and qk_norm_rope at module level instead of inside the patched forward"}
(R / "h100_qk_compile_diag.json").write_text(json.dumps(out, indent=1) + "\n")
steps = json.loads((D / "fixed_steps/qk_rope_compile_steps.json").read_text())
assert steps["meta"]["gpu"] == meta["gpu"]
(R / "h100_qk_rope_compile_steps.json").write_text(json.dumps(steps, indent=1) + "\n")
print("wrote", R / "h100_qk_compile_diag.json", R / "h100_qk_rope_compile_steps.json")
