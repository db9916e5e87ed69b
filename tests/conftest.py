"""Test set-up: Triton must run in its interpreter on this CPU machine.

TRITON_INTERPRET has to be set before any module with @triton.jit is imported,
so it is set here, at collection time, before the tests import the package.
"""

import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
