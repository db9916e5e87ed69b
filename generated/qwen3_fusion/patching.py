# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""qwen3_fusion.patching: patch_qwen3_rmsnorm, replace_children, unpatch_qwen3_rmsnorm.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六); every block below is marked with its chunk.
"""

__all__ = [
    "patch_qwen3_rmsnorm",
    "replace_children",
    "unpatch_qwen3_rmsnorm",
]


# %% src_literate/post2_triton_rmsnorm.pmd::patching_imports
from torch import nn
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

from qwen3_fusion.rmsnorm import TritonRMSNorm


# %% src_literate/post2_triton_rmsnorm.pmd::replace_children
def replace_children(model: nn.Module, make) -> int:
    """Replace every child c of every module in `model` by make(c) unless that is None."""
    count = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            new = make(child)
            if new is not None:
                setattr(parent, name, new)
                count += 1
    return count


# %% src_literate/post2_triton_rmsnorm.pmd::patch_qwen3_rmsnorm
def patch_qwen3_rmsnorm(model: nn.Module, backward: str = "triton") -> int:
    """Instance patch: each Qwen3RMSNorm in `model` (q_norm, k_norm too) -> TritonRMSNorm.

    The new module shares the old one's weight Parameter, so optimizers and checkpoints are
    unaffected; models built later are untouched. backward="torch" patches the forward only.
    Returns the number of modules replaced.
    """

    def make(child):
        if not isinstance(child, Qwen3RMSNorm):
            return None
        new = TritonRMSNorm(child.weight.shape[0], child.variance_epsilon, backward)
        new.weight = child.weight
        # keep the original outside the module tree, so that it stays out of state_dict()
        object.__setattr__(new, "_qwen3_original", child)
        return new

    return replace_children(model, make)


# %% src_literate/post2_triton_rmsnorm.pmd::unpatch_qwen3_rmsnorm
def unpatch_qwen3_rmsnorm(model: nn.Module) -> int:
    """Put back the Qwen3RMSNorm objects that patch_qwen3_rmsnorm replaced; -> how many."""
    return replace_children(model, lambda child: getattr(child, "_qwen3_original", None))
