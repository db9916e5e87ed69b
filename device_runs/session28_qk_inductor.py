"""What Inductor makes of Qwen3's q/k norm + RoPE (one GPU, any kind: the fusion decisions are the device's
code generator's, not the card's): compile HF's path for q alone and for the q, k pair as Qwen3Attention runs
it (4 x 2048, bf16, head_dim 128, 16 q heads, 8 k heads), forward and backward, and list each generated
kernel with the source nodes Inductor says it fused. Writes $OUT/qk_inductor_kernels.json and the code.
Usage (device): python3 device_runs/session28_qk_inductor.py   (--smoke: CPU, tiny shapes; --from DIR --date D:
rebuild the two results files from a finished call's saved code)
"""

import json
import os
import re
import sys
from pathlib import Path

import torch
from torch._inductor.utils import run_and_get_code
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm, apply_rotary_pos_emb

SMOKE = "--smoke" in sys.argv
DEV = "cpu" if SMOKE or "--from" in sys.argv else "cuda"  # --from only re-reads saved code
DT = torch.float32 if SMOKE else torch.bfloat16
B, S, D, HQ, HK = (1, 16, 16, 2, 1) if SMOKE else (4, 2048, 128, 16, 8)
OUT = Path(os.environ.get("OUT", "/tmp/qk_inductor"))
COMMAND = "python device_runs/session28_qk_inductor.py"
SHAPE = f"q ({B}, {S}, {HQ}, {D}), k ({B}, {S}, {HK}, {D}), {DT}, HF's Qwen3RMSNorm + apply_rotary_pos_emb"
OUT.mkdir(parents=True, exist_ok=True)

torch.manual_seed(0)
q_norm, k_norm = Qwen3RMSNorm(D).to(DEV, DT), Qwen3RMSNorm(D).to(DEV, DT)
ang = torch.randn(B, S, D // 2, device=DEV) * 3
emb = torch.cat([ang, ang], dim=-1)
cos, sin = emb.cos().to(DT), emb.sin().to(DT)


def one(q):  # the path of one tensor, as bench_qk_rope times it
    qq = q_norm(q).transpose(1, 2)
    return apply_rotary_pos_emb(qq, qq, cos, sin)[0]


def pair(q, k):  # Qwen3Attention: both norms, then one apply_rotary_pos_emb
    return apply_rotary_pos_emb(q_norm(q).transpose(1, 2), k_norm(k).transpose(1, 2), cos, sin)


def launches(src: str) -> list:
    """Each kernel launch (Triton, C++, or an ATen sum of a workspace) in generated code, in order, with the
    source nodes Inductor names in the comment block above it (code lines such as get_raw_stream between)."""
    lines, out = src.split("\n"), []
    for i, line in enumerate(lines):
        m = re.match(r"\s+((?:triton|cpp)_\w+)(?:\.run)?\(", line)
        if m:
            j = i - 1
            while (
                j >= 0
                and "Source Nodes" not in lines[j]
                and not re.match(r"\s+\w+\.run\(|\s+del ", lines[j])
            ):
                j -= 1
            nodes = (
                lines[j].split("Source Nodes:", 1)[1].strip()
                if j >= 0 and "Source Nodes" in lines[j]
                else ""
            )
            out.append({"kernel": m.group(1), "notes": nodes})
        elif re.search(r"\.sum\(dim|extern_kernels\.", line):
            out.append({"kernel": "(aten)", "notes": line.strip()})
    return out


def meta() -> dict:
    """What every results file names: the GPU, the driver, the versions, the date and the command."""
    import datetime
    import subprocess

    import transformers
    import triton

    driver = "cpu"
    if DEV == "cuda":
        q = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
        driver = (
            subprocess.run(q, capture_output=True, text=True, check=False).stdout.strip()
            or "unknown"
        )
    return {
        "gpu": torch.cuda.get_device_name() if DEV == "cuda" else "cpu",
        "driver": driver,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "transformers": transformers.__version__,
        "date": datetime.date.today().isoformat(),
        "command": COMMAND,
        "shape": SHAPE,
    }


def inputs(heads):
    return torch.randn(B, S, heads, D, device=DEV, dtype=DT, requires_grad=True)


def header(m: dict) -> str:
    """The results file header of a text artifact: one "# key: value" line per meta field."""
    return "".join(f"# {k}: {v}\n" for k, v in m.items())


def from_saved(folder: Path, date: str) -> dict:
    """The JSON rebuilt from a device call's saved code (qk_<name>_<k>.py[.txt]) and its versions.txt line
    ("torch triton transformers gpu name"); the driver was not recorded by the first call (2026-12-06)."""
    torch_v, triton_v, tf_v, *gpu = (folder / "versions.txt").read_text(encoding="utf-8").split()
    m = {"gpu": " ".join(gpu), "driver": "not recorded by this call", "torch": torch_v, "triton": triton_v,
         "transformers": tf_v, "date": date, "command": COMMAND, "shape": SHAPE}  # fmt: skip
    out = {"meta": m}
    for name in ("q_alone", "q_k_pair"):
        files = sorted(folder.glob(f"qk_{name}_*.py*"))
        out[name] = [launches(f.read_text(encoding="utf-8")) for f in files]
    return out


# rebuild the results from a finished call's files: --from DIR --date YYYY-MM-DD
if "--from" in sys.argv:
    folder = Path(sys.argv[sys.argv.index("--from") + 1])
    result = from_saved(folder, sys.argv[sys.argv.index("--date") + 1])
    bwd = next(folder.glob("qk_q_alone_1.py*")).read_text(encoding="utf-8")
    (OUT / "qk_inductor_backward.txt").write_text(header(result["meta"]) + bwd, encoding="utf-8")
    (OUT / "qk_inductor_kernels.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.exit(0)

result = {"meta": meta()}
for name, fn, args in (
    ("q_alone", one, (inputs(HQ),)),
    ("q_k_pair", pair, (inputs(HQ), inputs(HK))),
):
    torch._dynamo.reset()
    compiled = torch.compile(fn, dynamic=False)

    def step(compiled=compiled, args=args):
        ys = compiled(*args)
        ys = ys if isinstance(ys, tuple) else (ys,)
        torch.autograd.backward(list(ys), [torch.randn_like(y) for y in ys])

    _, sources = run_and_get_code(step)
    result[name] = [launches(src) for src in sources]
    for k, src in enumerate(sources):
        (OUT / f"qk_{name}_{k}.py").write_text(src, encoding="utf-8")
    print(name, [len(x) for x in result[name]])
    for graph in result[name]:
        for kern in graph:
            print("  ", kern["kernel"], "|", kern["notes"][:300])
(OUT / "qk_inductor_kernels.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
(OUT / "qk_inductor_backward.txt").write_text(
    header(result["meta"]) + (OUT / "qk_q_alone_1.py").read_text(encoding="utf-8"), encoding="utf-8"
)
