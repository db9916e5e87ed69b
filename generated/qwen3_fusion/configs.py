# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""Qwen3 configurations used by the posts, and model builders that need no downloaded weights.

`qwen3_config("qwen3-0.6b")` has the real Qwen3-0.6B shapes, `qwen3_config("qwen3-tiny")` the
same code paths at toy size (tests); `load_config` also reads a Hugging Face config.json.

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§二); every block below is marked with its chunk.
"""

__all__ = [
    "BUILTIN_CONFIGS",
    "ConfigError",
    "QWEN3_0_6B",
    "QWEN3_TINY",
    "build_model",
    "load_config",
    "qwen3_config",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::configs_head
import json
from pathlib import Path

import torch
from transformers import AutoConfig, AutoModelForCausalLM, PretrainedConfig, Qwen3Config

# the values of Qwen/Qwen3-0.6B's config.json
QWEN3_0_6B = dict(
    vocab_size=151936,
    hidden_size=1024,
    intermediate_size=3072,
    num_hidden_layers=28,
    num_attention_heads=16,
    num_key_value_heads=8,
    head_dim=128,
    hidden_act="silu",
    max_position_embeddings=40960,
    rms_norm_eps=1e-6,
    rope_theta=1_000_000.0,
    tie_word_embeddings=True,
)
# the same code paths (GQA with 2 query heads per kv head, q/k norm, tied embeddings), tiny
QWEN3_TINY = dict(
    QWEN3_0_6B,
    vocab_size=256,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=16,
    max_position_embeddings=512,
)
BUILTIN_CONFIGS = {"qwen3-0.6b": QWEN3_0_6B, "qwen3-tiny": QWEN3_TINY}


# %% src_literate/post1_qwen3_fusion_reading.pmd::configs_load
class ConfigError(ValueError):
    """A config name or file that cannot be turned into a model."""


def qwen3_config(name: str = "qwen3-0.6b", **overrides) -> Qwen3Config:
    """A built-in Qwen3 config by name, with keyword overrides (e.g. num_hidden_layers=2)."""
    if name not in BUILTIN_CONFIGS:
        raise ConfigError(f"unknown built-in config {name!r} (known: {', '.join(BUILTIN_CONFIGS)})")
    return Qwen3Config(**{**BUILTIN_CONFIGS[name], **overrides})


def load_config(spec: str, **overrides) -> PretrainedConfig:
    """A built-in name, or the path of a Hugging Face config.json (any model_type)."""
    if spec in BUILTIN_CONFIGS:
        return qwen3_config(spec, **overrides)
    path = Path(spec)
    if not path.is_file():
        known = ", ".join(BUILTIN_CONFIGS)
        raise ConfigError(f"{spec}: no such config file, and not a built-in name ({known})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConfigError(f"{spec}: not a JSON config file ({e})") from None
    if not isinstance(data, dict) or "model_type" not in data:
        raise ConfigError(f"{spec}: not a Hugging Face model config (no 'model_type' key)")
    if "num_hidden_layers" in overrides and isinstance(data.get("layer_types"), list):
        data["layer_types"] = data["layer_types"][: overrides["num_hidden_layers"]]
    try:
        return AutoConfig.for_model(data.pop("model_type"), **{**data, **overrides})
    except Exception as e:  # noqa: BLE001 - transformers' validators raise several types
        reason = str(e).strip().split("\n")[-1].strip()  # the validator's own message
        raise ConfigError(f"{spec}: not a config transformers can build: {reason}") from None


def build_model(config, device="cpu", dtype=torch.float32, attn_implementation=None, seed=0):
    """A causal LM with random weights, in eval mode; on device="meta" it has shapes, no data."""
    torch.manual_seed(seed)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(
            config, dtype=dtype, attn_implementation=attn_implementation
        )
    return model.eval()
