"""Why the scanner's CUDA profile counts 6 launches for FiveOps' 5 elementwise ops.

Prints, for each fx node range of two profiled runs (the scanner profiles a warm-up, then the
run it reads), every event under it with its kernels, and what the scanner itself counts.
"""

import sys

import torch

sys.path.insert(0, "tests")
from test_signals import X, FiveOps  # noqa: E402

from qwen3_fusion import candidates  # noqa: E402
from qwen3_fusion.reading import export_graph  # noqa: E402
from qwen3_fusion.signals import scan  # noqa: E402


def show(e, depth=1):
    ks = [k.name[:70] for k in e.kernels]
    print("  " * depth + f"{e.name} [{e.device_type}] kernels={ks}")
    for c in e.cpu_children:
        show(c, depth + 1)


x = X.cuda()
gm = export_graph(FiveOps(), (x,), {}).module()
for run in range(3):
    with torch.no_grad(), torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    ) as prof:
        candidates._NodeTimer(gm).run(x)
        torch.cuda.synchronize()
    print(f"--- run {run}")
    for e in prof.events():
        if e.name.startswith(candidates._TAG) and e.device_type == torch.autograd.DeviceType.CPU:
            print(f"{e.name}: scanner counts {candidates._launches(e)}")
            show(e)
(c,) = scan(FiveOps(), (x,))
print("scan launches:", c.launches, [i.launches for i in c.instances])
