"""Liger FLCE alone with a larger chunk budget: chunk_mem_const 1 (Liger 0.8.5's default for Qwen3),
4 and 16, beside HF eager, Qwen3-0.6B x 8 layers, 4 x 2048 (post 1 §5.1); since the sixth session
also Liger without FLCE and the whole Liger patch with chunk_mem_const 16, in the same process.
lce_forward passes no chunk_mem_const for Qwen3, so the ops function is wrapped to force it. Writes
$OUT/h200_flce_chunks_<config>.json; `--run=N` tags the rows (repeats are separate processes)."""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import liger_full_probe as probe  # noqa: E402
from qwen3_fusion import bench_common as bc  # noqa: E402
from qwen3_fusion import train_step as ts  # noqa: E402


def main() -> int:
    import liger_kernel.ops.fused_linear_cross_entropy as flce

    original = flce.fused_linear_cross_entropy_forward
    key = "qwen3_1.7b_6l" if "--1.7b" in sys.argv else "qwen3_0.6b_8l"  # the second run: --1.7b
    cfg = ts.TRAIN_CONFIG_1P7B if key == "qwen3_1.7b_6l" else ts.TRAIN_CONFIG
    state = ts.reference_state(cfg)
    batch = ts.make_batch(cfg)
    rows = []
    run = int(probe.ARGS.get("--run", "1"))
    todo = (("hf", None), ("flce_only", 1), ("flce_only", 4), ("flce_only", 16), ("no_flce", None), ("full", 16))
    if "--todo" in probe.ARGS:  # e.g. --todo=hf,flce_only:16 (group[:chunk_mem_const])
        todo = [(t.split(":")[0], int(t.split(":")[1]) if ":" in t else None) for t in probe.ARGS["--todo"].split(",")]
    texts = []
    for name, const in todo:
        def forced(*args, _c=const, **kwargs):
            kwargs["chunk_mem_const"] = _c
            return original(*args, **kwargs)

        flce.fused_linear_cross_entropy_forward = forced if const else original
        try:
            r, text = probe.measure(name, state, batch, cfg)
        finally:
            flce.fused_linear_cross_entropy_forward = original
        r["chunk_mem_const"] = const
        r["run"] = run
        rows.append(r)
        print(r, flush=True)
        if text:
            texts.append(f"## {key} {name} chunk_mem_const={const}\n{text}\n")
    res = {"meta": bc.environment(" ".join(["python device_runs/flce_chunks.py", *sys.argv[1:]])), "config": key, "rows": rows}
    bc.write_json(res, os.path.join(probe.OUT, f"h200_flce_chunks_{key}_run{run}.json"))
    if texts:
        bc.write_text(os.path.join(probe.OUT, f"h200_flce_chunks_{key}_run{run}.txt"), "\n".join(texts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
