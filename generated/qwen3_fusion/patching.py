# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post2_triton_rmsnorm.pmd by `python build.py tangle`; edit the source instead.
"""qwen3_fusion.patching: patch_qwen3_qk_norm_rope, patch_qwen3_rmsnorm, replace_children, unpatch_qwen3_rmsnorm.

Tangled from src_literate/post2_triton_rmsnorm.pmd (§六, §七); every block below is marked with its chunk.
"""

__all__ = [
    "patch_qwen3_qk_norm_rope",
    "patch_qwen3_rmsnorm",
    "replace_children",
    "unpatch_qwen3_rmsnorm",
]


# %% src_literate/post2_triton_rmsnorm.pmd::patching_imports
from torch import nn
from transformers.models.qwen3 import modeling_qwen3 as mq
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

from qwen3_fusion.qk_norm_rope import qk_norm_rope
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


# %% src_literate/post2_triton_rmsnorm.pmd::patch_qk_norm_rope
def _fused_attention_forward(
    self, hidden_states, position_embeddings, attention_mask, *args, **kwargs
):
    """Qwen3Attention.forward with q_norm, k_norm and RoPE fused, for training: a KV cache that a
    training forward is handed (HF builds one unless use_cache=False) is left untouched; in eval
    mode a cache is refused, since generation would need it filled. Nothing is imported in here:
    under torch 2.11, Dynamo breaks the graph at an import of transformers' lazy modules."""
    caches = [kwargs.pop(k, None) for k in ("cache", "past_key_values")]
    if args or (not self.training and any(c is not None for c in caches)):
        raise ValueError(
            "patch_qwen3_qk_norm_rope: training forward only; a KV cache is not supported"
        )
    input_shape = hidden_states.shape[:-1]
    hidden_shape = (*input_shape, -1, self.head_dim)
    cos, sin = position_embeddings

    # q_proj, q_norm and RoPE (or k's), as (batch, heads, seq, head_dim)
    def normed_rotated(proj, norm):
        x = proj(hidden_states).view(hidden_shape)
        return qk_norm_rope(x, norm.weight, cos, sin, norm.variance_epsilon).transpose(1, 2)

    q, k = normed_rotated(self.q_proj, self.q_norm), normed_rotated(self.k_proj, self.k_norm)
    v = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    attention = mq.ALL_ATTENTION_FUNCTIONS.get_interface(
        self.config._attn_implementation, mq.eager_attention_forward
    )
    out, weights = attention(self, q, k, v, attention_mask, dropout=0.0 if not self.training else self.attention_dropout,
                             scaling=self.scaling, sliding_window=self.sliding_window, **kwargs)  # fmt: skip
    return self.o_proj(out.reshape(*input_shape, -1).contiguous()), weights


def patch_qwen3_qk_norm_rope(model: nn.Module) -> int:
    """Instance patch: each Qwen3Attention's q_norm, k_norm and RoPE run as qwen3_fusion.qk_norm_rope.

    The attention's forward is replaced on the instance (training path, no KV cache); the q_norm and
    k_norm modules and their weights stay where they were. Returns the number of layers patched.
    """
    import types

    from transformers.models.qwen3.modeling_qwen3 import Qwen3Attention

    count = 0
    for module in model.modules():
        if isinstance(module, Qwen3Attention):
            module.forward = types.MethodType(_fused_attention_forward, module)
            count += 1
    return count
