"""What Inductor makes of Qwen3's q/k norm + RoPE (one GPU, any kind: the fusion decisions are the device's
code generator's, not the card's): compile HF's path for q alone and for the q, k pair as Qwen3Attention runs
it (4 x 2048, bf16, head_dim 128, 16 q heads, 8 k heads), forward and backward, and list each generated
kernel with the source nodes Inductor says it fused. Writes $OUT/qk_inductor_kernels.json and the code.
Usage (device): python3 device_runs/session28_qk_inductor.py   (--smoke: CPU, tiny shapes)
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
DEV = "cpu" if SMOKE else "cuda"
DT = torch.float32 if SMOKE else torch.bfloat16
B, S, D, HQ, HK = (1, 16, 16, 2, 1) if SMOKE else (4, 2048, 128, 16, 8)
OUT = Path(os.environ.get("OUT", "/tmp/qk_inductor"))
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
    """Each kernel launch in generated code, with the comment lines right above it."""
    lines, out = src.split("\n"), []
    for i, line in enumerate(lines):
        m = re.match(r"\s+((?:triton|cpp)_\w+)(?:\.run)?\(", line)
        if not m:
            continue
        j, notes = i - 1, []
        while j >= 0 and lines[j].strip().startswith("#"):
            notes.insert(0, lines[j].strip().lstrip("# ").strip())
            j -= 1
        nodes = " ".join(n for n in notes if not n.startswith("Call mix order"))
        out.append({"kernel": m.group(1), "notes": nodes})
    others = [ln.strip() for ln in lines if re.search(r"\.sum\(dim|extern_kernels\.", ln)]
    return out + [{"kernel": "(aten)", "notes": o} for o in others]


def inputs(heads):
    return torch.randn(B, S, heads, D, device=DEV, dtype=DT, requires_grad=True)


result = {"meta": {"torch": torch.__version__, "device": torch.cuda.get_device_name() if DEV == "cuda" else "cpu",
                   "shape": [B, S, D], "q_heads": HQ, "k_heads": HK, "dtype": str(DT)}}  # fmt: skip
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
