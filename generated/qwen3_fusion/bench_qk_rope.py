# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""q/k norm + RoPE, three ways: `python -m qwen3_fusion.bench --probe qk_rope`.

HF's modules in eager (Qwen3RMSNorm, then apply_rotary_pos_emb), the same function under torch.compile,
and qwen3_fusion.qk_norm_rope's fused kernels, at the q and k shapes of the two step configs (bf16),
forward and backward timed as the kernel tables are (bench_norms.time_passes: CUDA-graph replay, and
the plain loop), with the fused output's bitwise agreement with HF's.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§七); every block below is marked with its chunk.
"""

__all__ = [
    "QK_SHAPES",
    "qk_rope",
]


# %% src_literate/post2_triton_rmsnorm.pmd::bench_qk_rope
import torch

from qwen3_fusion import bench_common as bc

# (batch, seq, heads, head_dim): q and k of qwen3_0.6b_8l (4 x 2048) and qwen3_1.7b_6l (2 x 4096)
QK_SHAPES = [(4, 2048, 16, 128), (4, 2048, 8, 128), (2, 4096, 16, 128), (2, 4096, 8, 128)]


def _one_shape(b: int, s: int, h: int, d: int, dtype, log) -> list:
    """Rows for one (batch, seq, heads, head_dim): each implementation's fwd and bwd timings."""
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm, apply_rotary_pos_emb

    from qwen3_fusion.bench_norms import time_passes
    from qwen3_fusion.qk_norm_rope import qk_norm_rope

    torch.manual_seed(0)
    x = torch.randn(b, s, h, d, device=bc.DEVICE, dtype=dtype)
    norm = Qwen3RMSNorm(d).to(bc.DEVICE, dtype)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
    ang = torch.randn(b, s, d // 2, device=bc.DEVICE) * 3
    emb = torch.cat([ang, ang], dim=-1)
    cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)
    dy = torch.randn(b, h, s, d, device=bc.DEVICE, dtype=dtype)

    def hf(xx):  # Qwen3Attention's path for one of q, k
        q = norm(xx).transpose(1, 2)
        return apply_rotary_pos_emb(q, q, cos, sin)[0]

    def fused(xx):
        return qk_norm_rope(xx, norm.weight, cos, sin).transpose(1, 2)

    torch._dynamo.reset()
    impls = {"hf_eager": hf, "torch_compile": torch.compile(hf, dynamic=False), "fused": fused}
    rows, outs = [], {}
    for name, fn in impls.items():
        times, (y, _dx, _dw) = time_passes(fn, norm.weight, x, dy)
        outs[name] = y
        for p, t in times.items():
            rows.append({"batch": b, "seq": s, "heads": h, "head_dim": d, "impl": name, "pass": p,
                         "dtype": str(dtype).removeprefix("torch."), **t})  # fmt: skip
        timed = " ".join(f"{p} {1e3 * t['ms']:.1f} us" for p, t in times.items())
        log(f"qk_rope {b}x{s}x{h}x{d} {name:14s} {timed}")
    rows[-1]["bitwise_equal_hf"] = float((outs["fused"] == outs["hf_eager"]).float().mean())
    return rows


def qk_rope(log=print) -> dict:
    dtype = torch.float32 if bc.SMOKE else torch.bfloat16  # the CPU interpreter truncates bf16
    rows = []
    for b, s, h, d in [(1, 16, 2, 16)] if bc.SMOKE else QK_SHAPES:
        rows += _one_shape(b, s, h, d, dtype, log)
        if not bc.SMOKE:
            torch.cuda.empty_cache()
    return {"rows": rows}
