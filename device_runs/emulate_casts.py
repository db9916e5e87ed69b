"""torch.compile of HF's Qwen3RMSNorm with and without Inductor's emulate_precision_casts:
the share of bf16 outputs bitwise equal to HF eager, and the forward time under a CUDA graph.

python device_runs/emulate_casts.py OUT.json   (a GPU; --smoke: tiny shapes on the CPU)
"""

import datetime
import json
import subprocess
import sys

import torch
import transformers
import triton
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

smoke = "--smoke" in sys.argv
dev = "cpu" if smoke else "cuda"
rows_n = 64 if smoke else 16384
shapes = (128, 1024) if smoke else (128, 1024, 2048, 4096)
out = {
    "meta": {
        "gpu": "cpu (smoke)" if smoke else torch.cuda.get_device_name(),
        "driver": "none" if smoke else subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30,
        ).stdout.split()[0],
        "torch": torch.__version__,
        "triton": triton.__version__,
        "transformers": transformers.__version__,
        "date": datetime.date.today().isoformat(),
        "command": "python device_runs/emulate_casts.py",
    },
    "rows": [],
}
gen = torch.Generator(device=dev).manual_seed(0)
for n in shapes:
    m = Qwen3RMSNorm(n, eps=1e-6).to(dev, torch.bfloat16)
    with torch.no_grad():
        m.weight.copy_(1 + 0.1 * torch.randn(n, generator=gen, device=dev))
    x = torch.randn(rows_n, n, generator=gen, device=dev, dtype=torch.bfloat16)
    with torch.no_grad():
        ref = m(x)
    for emulate in (False, True):
        torch._dynamo.reset()
        torch._inductor.config.emulate_precision_casts = emulate
        c = torch.compile(m)
        with torch.no_grad():
            y = c(x)
            eq = (y == ref).float().mean().item()
            ms = None
            if not smoke:
                ms = triton.testing.do_bench_cudagraph(lambda: c(x), rep=50)
        row = dict(rows=rows_n, n=n, emulate_precision_casts=emulate, bitwise_equal_hf=eq, fwd_ms=ms)
        out["rows"].append(row)
        print(row, flush=True)
with open(sys.argv[1], "w") as f:
    json.dump(out, f, indent=1)
