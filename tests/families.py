"""Tiny random configs of model families in transformers, and what the scanner must find in each.

Used by tests/test_scanner_families.py and to write the per-family table in NOTES.md.
"""

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM

SMALL = dict(
    vocab_size=128,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=128,
)
# GPT-J and CodeGen (written after it) name their sizes the GPT-2 way, with a partial rotary dim
GPTJ_SMALL = {"n_embd": 64, "n_layer": 2, "n_head": 4, "rotary_dim": 8}
# model_type -> (extra config, norm class, rotary?, activation ops, q/k/v as separate Linears?)
FAMILIES = {
    "llama": ({}, "LlamaRMSNorm", True, {"silu"}, True),
    "mistral": ({}, "MistralRMSNorm", True, {"silu"}, True),
    "qwen2": ({}, "Qwen2RMSNorm", True, {"silu"}, True),
    "qwen3": ({"head_dim": 16}, "Qwen3RMSNorm", True, {"silu"}, True),
    "phi3": ({"pad_token_id": 0}, "Phi3RMSNorm", True, {"silu"}, False),
    "gemma": ({"head_dim": 16}, "GemmaRMSNorm", True, {"gelu"}, True),
    "gemma2": ({"head_dim": 16}, "Gemma2RMSNorm", True, {"gelu"}, True),
    "olmo2": ({}, "Olmo2RMSNorm", True, {"silu"}, True),
    "granite": ({}, "GraniteRMSNorm", True, {"silu"}, True),
    "starcoder2": ({}, "LayerNorm", True, {"gelu", "tanh"}, True),
    "qwen3_moe": (
        {"head_dim": 16, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32},
        "Qwen3MoeRMSNorm",
        True,
        {"silu"},
        True,
    ),
    "gpt2": (
        {"n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 128},
        "LayerNorm",
        False,
        {"tanh"},
        False,
    ),
    "bert": ({}, "LayerNorm", False, {"gelu"}, True),
    # added with scanner v3: interleaved RoPE (stack, not cat), fused gate_up + chunk, LayerNorm
    # that starts with a mean, MoE experts, multi-head latent attention
    "cohere": ({}, "CohereLayerNorm", True, {"silu"}, False),
    "glm4": ({"head_dim": 16, "pad_token_id": 0}, "Glm4RMSNorm", True, {"silu"}, True),
    "mixtral": (
        {"num_local_experts": 4, "num_experts_per_tok": 2},
        "MixtralRMSNorm",
        True,
        {"silu"},
        True,
    ),
    "olmo": ({}, "LayerNorm", True, {"silu"}, True),
    # forward(**kwargs) with no use_cache parameter of its own: the scanner must still turn the cache off
    "granitemoe": (
        {"num_local_experts": 4, "num_experts_per_tok": 2},
        "GraniteMoeRMSNorm",
        True,
        {"silu"},
        True,
    ),
    "deepseek_v3": (
        {
            # MLA: heads and kv heads equal, as in the real config (with fewer kv heads
            # torch.export fails in SDPA: "broadcast a dimension of length 8 ... [1, 4]")
            "num_key_value_heads": 4,
            "n_routed_experts": 8,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 32,
            "n_group": 2,
            "topk_group": 1,
            "first_k_dense_replace": 1,
            "q_lora_rank": 32,
            "kv_lora_rank": 16,
            "qk_rope_head_dim": 8,
            "qk_nope_head_dim": 8,
            "v_head_dim": 16,
            "n_shared_experts": 1,
        },
        "DeepseekV3RMSNorm",
        True,
        {"silu"},
        False,
    ),
    # added in session 12: no sdpa path in transformers 5.24 (the CLI falls back to eager); BLOOM
    # has ALiBi and a fused query_key_value, Mamba a selective scan unrolled into a long op chain
    "bloom": ({"n_head": 4, "n_layer": 2}, "LayerNorm", False, {"tanh"}, False),
    "mamba": ({}, "MambaRMSNorm", False, {"silu"}, False),
    # added in session 18: newer dense, MoE and hybrid families (GeGLU, GPT-OSS's clamped GLU, ReLU²,
    # LayerNorm1P, complex-number RoPE in Llama 4, Mamba/attention hybrids, fused qkv_proj)
    "gemma3_text": ({"head_dim": 16}, "Gemma3RMSNorm", True, {"gelu"}, True),
    "phi": ({}, "LayerNorm", True, {"tanh"}, True),
    "gpt_neox": ({}, "LayerNorm", True, {"gelu"}, False),
    "falcon": ({}, "LayerNorm", True, {"gelu"}, False),
    "stablelm": ({}, "LayerNorm", True, {"silu"}, True),
    "qwen2_moe": (
        {
            "num_experts": 4,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 32,
            "shared_expert_intermediate_size": 32,
        },
        "Qwen2MoeRMSNorm",
        True,
        {"silu"},
        True,
    ),
    "gpt_oss": (
        {"head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 2},
        "GptOssRMSNorm",
        True,
        {"sigmoid"},
        True,
    ),
    "exaone4": ({}, "Exaone4RMSNorm", True, {"silu"}, True),
    "glm4_moe": (
        {
            "head_dim": 16,
            "n_routed_experts": 4,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 32,
            "first_k_dense_replace": 1,
        },
        "Glm4MoeRMSNorm",
        True,
        {"silu"},
        True,
    ),
    "helium": ({"head_dim": 16}, "HeliumRMSNorm", True, {"silu"}, True),
    "ernie4_5": ({}, "Ernie4_5RMSNorm", True, {"silu"}, True),
    "hunyuan_v1_dense": ({"head_dim": 16}, "HunYuanDenseV1RMSNorm", True, {"silu"}, True),
    "seed_oss": ({"head_dim": 16}, "SeedOssRMSNorm", True, {"silu"}, True),
    "arcee": ({}, "ArceeRMSNorm", True, {"relu"}, True),
    "nemotron": ({}, "NemotronLayerNorm1P", True, {"relu"}, True),
    "gptj": (GPTJ_SMALL, "LayerNorm", True, {"gelu", "tanh"}, True),
    "codegen": (GPTJ_SMALL, "LayerNorm", True, {"gelu", "tanh"}, False),
    "opt": ({"ffn_dim": 128, "word_embed_proj_dim": 64}, "LayerNorm", False, {"relu"}, True),
    "llama4_text": (
        {"head_dim": 16, "num_local_experts": 2, "intermediate_size_mlp": 128},
        "Llama4TextRMSNorm",
        True,
        {"silu"},
        True,
    ),
    "lfm2": ({}, "Lfm2RMSNorm", True, {"silu"}, True),
    "bitnet": ({}, "BitNetRMSNorm", True, {"relu"}, True),
    "falcon_h1": ({}, "FalconH1RMSNorm", True, {"silu"}, True),
    "jamba": (  # one attention and one expert layer among the two
        {
            "attn_layer_offset": 1,
            "attn_layer_period": 2,
            "expert_layer_offset": 1,
            "expert_layer_period": 2,
        },
        "JambaRMSNorm",
        False,
        {"silu"},
        True,
    ),
    "olmoe": ({"num_experts": 4, "num_experts_per_tok": 2}, "OlmoeRMSNorm", True, {"silu"}, True),
    "phimoe": ({"num_local_experts": 4}, "LayerNorm", True, {"silu"}, True),
}


EAGER_ONLY = {"gemma2", "bloom", "mamba", "gpt_oss"}  # transformers 5.24 refuses sdpa for these


def build_family(model_type: str, attn: str = "sdpa"):
    """A tiny random-weight model of the family, in eval mode (a masked LM for BERT)."""
    extra = FAMILIES[model_type][0]
    attn = "eager" if model_type in EAGER_ONLY else attn
    config = AutoConfig.for_model(model_type, **{**SMALL, **extra})
    auto = AutoModelForMaskedLM if model_type == "bert" else AutoModelForCausalLM
    torch.manual_seed(0)
    return auto.from_config(config, attn_implementation=attn).eval()


def expectations(model_type: str, cands: list) -> dict:
    """{what: found?} for the family's norm, RoPE, MLP activation and q/k/v merge."""
    _, norm, rotary, acts, separate_qkv = FAMILIES[model_type]
    ops = [set(c.ops) for c in cands]
    found = {
        "norm": any(
            norm in c.module_type or "norm" in c.label.lower() or "ln_" in c.label for c in cands
        ),
        "activation": any(acts & o for o in ops),
    }
    if rotary:  # named from apply_rotary_pos_emb / rotate_half, however it is written
        found["rope"] = any("RoPE" in c.patterns and not c.setup for c in cands)
    if separate_qkv:
        found["qkv"] = any(
            c.kind == "shared-input matmuls"
            and any(s in c.label for s in ("q_proj+k_proj+v_proj", "query+key+value"))
            for c in cands
        )
    return found
