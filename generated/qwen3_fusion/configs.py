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
    "check_size",
    "estimate_bytes",
    "free_bytes",
    "load_config",
    "qwen3_config",
    "text_config",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::configs_head
import difflib
import json
import os
from pathlib import Path

import torch
from transformers import AutoConfig, AutoModelForCausalLM, PretrainedConfig, Qwen3Config
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

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
    """A built-in name, the path of a Hugging Face config.json (any model_type), or of a
    checkpoint folder holding one."""
    if spec in BUILTIN_CONFIGS:
        return qwen3_config(spec, **overrides)
    path = Path(spec)
    if path.is_dir() and (path / "config.json").is_file():
        path = path / "config.json"
    elif path.is_dir():
        raise ConfigError(f"{spec}: a folder without a config.json")
    elif not path.is_file():
        known = ", ".join(BUILTIN_CONFIGS)
        raise ConfigError(f"{spec}: no such config file, and not a built-in name ({known})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConfigError(f"{spec}: not a JSON config file ({e})") from None
    if not isinstance(data, dict) or "model_type" not in data:
        raise ConfigError(f"{spec}: not a Hugging Face model config (no 'model_type' key)")
    model_type = data["model_type"]
    if model_type not in CONFIG_MAPPING:  # transformers' own message lists every known type
        close = difflib.get_close_matches(str(model_type), list(CONFIG_MAPPING), n=4, cutoff=0.5)
        hint = f"close: {', '.join(close)}" if close else "see transformers' CONFIG_MAPPING"
        raise ConfigError(f"{spec}: unknown model_type {model_type!r} ({hint})")
    if "num_hidden_layers" in overrides and isinstance(data.get("layer_types"), list):
        data["layer_types"] = data["layer_types"][: overrides["num_hidden_layers"]]
    try:
        config = AutoConfig.for_model(data.pop("model_type"), **{**data, **overrides})
    except Exception as e:  # noqa: BLE001 - transformers' validators raise several types
        reason = str(e).strip().split("\n")[-1].strip()  # the validator's own message
        raise ConfigError(f"{spec}: not a config transformers can build: {reason}") from None
    text, n = text_config(config), overrides.get("num_hidden_layers")
    if n is not None and text is not config and hasattr(text, "num_hidden_layers"):
        text.num_hidden_layers = n  # a composite config (Gemma3): cut its language model
        if isinstance(getattr(text, "layer_types", None), list):
            text.layer_types = text.layer_types[:n]
    return config


def text_config(config: PretrainedConfig) -> PretrainedConfig:
    """The language model's config inside a composite one (Gemma3, vision-language models),
    else the config itself: where vocab_size, hidden_size and num_hidden_layers live."""
    get = getattr(config, "get_text_config", None)
    return get() if callable(get) else config


def estimate_bytes(config, weight_bytes, dtype, batch, seq, train=False, eager=False) -> int:
    """Weights plus a generous guess at the activations a scan holds: per layer ~10 hidden-
    and 3 intermediate-sized tensors per token, eager attention's scores, the logits with their
    fp32 copies; a training step keeps them all, adds their gradients and the weights'."""
    size = torch.empty((), dtype=dtype).element_size()
    config = text_config(config)
    hidden = getattr(config, "hidden_size", 0) or 0
    inter = getattr(config, "intermediate_size", 0) or 4 * hidden
    heads = getattr(config, "num_attention_heads", 0) or 0
    layers = getattr(config, "num_hidden_layers", 0) or 0
    layer = batch * seq * (10 * hidden + 3 * inter) * size
    layer += batch * heads * seq * seq * (2 * size + 4) if eager else 0
    acts = layers * layer + batch * seq * config.vocab_size * (size + 8)
    return weight_bytes + (2 * acts + weight_bytes if train else acts)


def free_bytes(device) -> int:
    """Memory free on the device: CUDA's own count, else the host's MemAvailable."""
    if str(device).startswith("cuda"):
        return torch.cuda.mem_get_info(torch.device(device))[0]
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            info = dict(line.split(":", 1) for line in f)
        return int(info["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def check_size(spec, config, weight_bytes, dtype, device, max_bytes=None, **shape) -> None:
    """Refuse (ConfigError) a build estimated above max_bytes, by default half the free memory:
    the machine is shared, and a scan runs the graph twice."""
    need = estimate_bytes(config, weight_bytes, dtype, **shape)
    limit = max_bytes if max_bytes is not None else free_bytes(device) // 2
    if need > limit:
        raise ConfigError(
            f"{spec}: needs about {need / 1e9:.1f} GB on {device} ({weight_bytes / 1e9:.1f} GB "
            f"of weights), over the {limit / 1e9:.1f} GB allowed; use --device meta (shapes "
            "only), fewer --layers/--seq/--batch, or --max-gb"
        )


def build_model(config, device="cpu", dtype=torch.float32, attn_implementation=None, seed=0):
    """A causal LM with random weights, in eval mode; on device="meta" it has shapes, no data."""
    torch.manual_seed(seed)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(
            config, dtype=dtype, attn_implementation=attn_implementation
        )
    return model.eval()
