# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""Launch a @triton.jit kernel with less host time than `kernel[grid](...)` on repeat calls.

Triton's `JITFunction.run` binds the arguments, builds a specialization key, reads the launch
hooks and looks up the compiled kernel on every call. For a kernel launched thousands of times
per training step with the same few argument layouts, that work repeats identical answers.
The key Triton builds depends only on what it specializes on: each tensor's dtype and 16-byte
alignment, each integer's divisibility by 16, equality to 1 and width, the constexpr values and
the launch options. `launch` computes a key holding all of these (so it is never coarser than
Triton's), keeps the `CompiledKernel` that Triton's own launch returned for it, and on a hit calls
that kernel's launcher directly, as `JITFunction.run` does. The interpreter, a launch hook (a
profiler such as Proton), a tensor on a device other than the current one, or a Triton without
these attributes always take Triton's own path. QWEN3_FUSION_TRITON_LAUNCH=1 forces it.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "launch",
]


# %% src_literate/post2_triton_rmsnorm.pmd::launcher
import os

import torch
from triton import knobs as _knobs  # read at each launch: a profiler may add hooks

# the raw getters Triton's own launcher uses; torch.cuda.current_device() / current_stream()
# build Python objects (~10-20 us each on a slow host)
_get_device = getattr(torch._C, "_cuda_getDevice", None)
_get_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_FAST = (
    os.environ.get("TRITON_INTERPRET", "0") != "1"
    and os.environ.get("QWEN3_FUSION_TRITON_LAUNCH", "0") != "1"
    and _get_device is not None
    and _get_stream is not None
)
_compiled: dict = {}  # our key -> CompiledKernel
_I32 = range(-(2**31), 2**31)


def _spec(a):
    """What Triton specializes a launch argument on (a superset of it)."""
    t = type(a)
    if t is int:
        return a % 16 == 0, a == 1, a in _I32
    if t is float:
        return float  # floats are passed by value, never specialized
    if t is bool:
        return bool, a
    if isinstance(a, torch.Tensor):
        return a.dtype, a.data_ptr() % 16 == 0
    return a  # constexpr values and None


def _hooks_off() -> bool:
    """No launch hook is registered (Triton 3.6+ keeps them in HookChain objects, never None)."""
    hooks = (_knobs.runtime.launch_enter_hook, _knobs.runtime.launch_exit_hook)
    return all(h is None or not getattr(h, "calls", True) for h in hooks)


def launch(
    kernel, grid: tuple, args: tuple, constexprs: dict, num_warps: int, options: dict | None = None
) -> None:
    """kernel[grid](*args, **constexprs, num_warps=num_warps, **options), with constexprs given in
    the kernel's parameter order after the positional args; options are compile options such as
    enable_fp_fusion."""
    global _FAST
    options = options or {}
    index = args[0].device.index
    if _FAST and index == _get_device():
        key = (kernel, index, num_warps, *sorted(options.items()), *map(_spec, args),
               *constexprs.values())  # fmt: skip
        ck = _compiled.get(key)
        if ck is not None and _hooks_off():
            try:  # what JITFunction.run does after its cache lookup, with no launch metadata
                ck.run(grid[0], grid[1] if len(grid) > 1 else 1, 1,
                       _get_stream(index), ck.function,
                       ck.packed_metadata, None, None, None, *args, *constexprs.values())  # fmt: skip
                return
            except (AttributeError, TypeError):  # a Triton whose launch API differs: its own path
                _FAST = False
                _compiled.clear()
        try:
            ck = kernel[grid](*args, **constexprs, num_warps=num_warps, **options)
            usable = ck.function is not None and hasattr(ck, "packed_metadata")
            if _FAST and _hooks_off() and usable:
                _compiled[key] = ck
        except AttributeError:  # the launch ran; its handle lacks what the fast path needs
            _FAST = False
        return
    if args[0].is_cuda and index != torch.cuda.current_device():
        with torch.cuda.device(index):  # Triton launches on the current device
            kernel[grid](*args, **constexprs, num_warps=num_warps, **options)
        return
    kernel[grid](*args, **constexprs, num_warps=num_warps, **options)
