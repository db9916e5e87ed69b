# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""The command line `qwen3-fusion-scan`: build a random-weight model from a config and scan it.

    qwen3-fusion-scan --config qwen3-0.6b --layers 2 --seq 2048 --device meta --train
    qwen3-fusion-scan --config path/to/checkpoint/ --inductor --json

Bad input (a config that cannot be read or built, a size that would not fit in memory, a model
torch.export rejects) is one line on stderr and exit code 2.

JSON (`--json`), schema_version 2; removing a field or changing its meaning raises the
version, adding one does not:
    schema_version  int
    meta            model, config, layers, batch, seq, dtype, device, attn, train, profiled,
                    small_bytes, note (str or null), gpu, gbps (copy GB/s), launch_us,
                    inductor (bool: the inductor column was computed),
                    inductor_backend ("cpu" or "cuda" when it was; else null); attn is the
                    attention the model ran with (eager when asked, or when it has no sdpa)
    total           bytes_saved, us_saved, launches_saved: sums over the rows with parent 0
    candidates      one object per row, in rank order:
      rank          1, 2, ... in display order; a nested row follows its parent
      parent        rank of the smallest row that contains this one; 0 at top level
      label         e.g. "Qwen3Attention: RMSNorm(q_norm, k_norm) + RoPE + reshape"
      kind          "memory-bound chain", "shared-input matmuls" or "gemm epilogue"
      module_type   class of the module the group belongs to
      patterns      known patterns in it: "RMSNorm", "LayerNorm", "RoPE", "SwiGLU", "GeGLU",
                    "softmax", "cross-entropy", "residual add", activations ("SiLU", ...)
      ops           aten op names of one occurrence, in graph order
      signals       the signals that fired (qwen3_fusion.signals.SIGNALS)
      setup         true for mask / position chains (once per forward)
      inductor      "fused", "partly", "not" (torch.compile's kernels), "" when not checked
      occurrences, launches, launches_saved (launches - occurrences)
      bytes_unfused, bytes_fused, bytes_saved: per step, all occurrences; an int, or a str
                    when the size depends on data (e.g. "256*u0")
      us_saved      bytes_saved / gbps + launches_saved * launch_us, µs (float, or str)
      instances     [{module, source ("file:lines" or "?"), nodes, launches, bytes_unfused,
                    bytes_fused, and cpu_us, device_us with --timings}]

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "AUTO_CPU_BYTES",
    "SCHEMA_VERSION",
    "main",
    "scan_config",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::cli_head
import argparse
import contextlib
import json
import logging
import math
import os
import sys

import torch

from qwen3_fusion.configs import ConfigError, build_model, check_size, load_config, text_config
from qwen3_fusion.fusion_groups import is_symbolic
from qwen3_fusion.reading import ExportError
from qwen3_fusion.signals import GPUS, SMALL_BYTES, cost_model, format_table, scan, total

SCHEMA_VERSION = 2


# %% src_literate/post1_qwen3_fusion_reading.pmd::cli_parser
class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit code 2, as argparse does)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive(cast, zero_ok=False):
    """An argparse type: a number > 0 (>= 0 with zero_ok), finite, of the given type."""

    def parse(text):
        try:
            value = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {cast.__name__} value: {text!r}") from None
        if not (value >= 0 if zero_ok else value > 0) or not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be {'>=' if zero_ok else '>'} 0, got {text}")
        return value

    parse.__name__ = f"{'non-negative' if zero_ok else 'positive'} {cast.__name__}"
    return parse


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="qwen3-fusion-scan",
        description="Rank the fusion candidates of a Hugging Face model by the four signals.",
    )
    p.add_argument(
        "--config",
        required=True,
        help="qwen3-0.6b, qwen3-tiny, a config.json or a folder holding one",
    )
    p.add_argument("--layers", type=_positive(int), help="cut the model to this many layers")
    p.add_argument("--seq", type=_positive(int), default=64, help="sequence length (default 64)")
    p.add_argument("--batch", type=_positive(int), default=1, help="batch size (default 1)")
    p.add_argument("--dtype", choices=("bfloat16", "float32"), default="bfloat16")
    p.add_argument(
        "--device",
        help="cpu, cuda, or meta (shapes only, no profile); default: cpu when the weights "
        "fit in 1 GB, else meta",
    )
    p.add_argument(
        "--attn",
        choices=("sdpa", "eager"),
        help="attention implementation (default: sdpa where the model has it, else eager, as "
        "transformers picks); eager shows the softmax path",
    )
    p.add_argument("--train", action="store_true", help="one training step: labels, loss, backward")
    p.add_argument(
        "--small-mb",
        type=_positive(float),
        default=SMALL_BYTES / 2**20,
        help="signal 1 threshold: mean MiB moved per launch (default 16)",
    )
    p.add_argument(
        "--gpu", choices=sorted(GPUS), default="h200", help="cost model for est_us (default h200)"
    )
    p.add_argument("--gbps", type=_positive(float), help="copy bandwidth, GB/s (overrides --gpu)")
    p.add_argument(
        "--launch-us",
        type=_positive(float, zero_ok=True),
        help="host time saved per launch removed, µs (default 0: a GPU-bound step hides "
        "launches; when the GPU mostly idles, use the host's cost per kernel: step time / kernels)",
    )
    p.add_argument(
        "--inductor",
        nargs="?",
        const="cpu",
        choices=("cpu", "cuda"),
        help="also compile the graph with Inductor's cpu (default) or cuda backend and say "
        "what it fuses (slower; cuda needs a GPU, nothing runs on it)",
    )
    p.add_argument(
        "--max-gb",
        type=_positive(float),
        help="refuse a CPU or CUDA scan estimated above this (default: half the free memory)",
    )
    p.add_argument("--top", type=_positive(int), help="show only the first N candidates")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--timings", action="store_true", help="add profiled times (they vary)")
    return p


# %% src_literate/post1_qwen3_fusion_reading.pmd::scan_config
AUTO_CPU_BYTES = 1 << 30  # without --device, weights larger than this stay on meta


def _build(spec, config, device, dtype, attn):
    try:
        return build_model(config, device, dtype, attn_implementation=attn)
    except Exception as e:  # noqa: BLE001 - a bad hidden_act is a KeyError, others vary
        why = _first_line(e)
        act = getattr(config, "hidden_act", None)
        if isinstance(e, KeyError) and e.args and e.args[0] == act:
            why = f"unknown hidden_act {act!r}"
        raise ConfigError(f"{spec}: cannot build a model on {device}: {why}") from None


def _first_line(e: BaseException) -> str:
    text = str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
    return (text.strip().split("\n") or [""])[0]


def scan_config(
    spec: str,
    layers=None,
    seq=64,
    batch=1,
    dtype="bfloat16",
    device=None,
    attn=None,
    small_bytes=SMALL_BYTES,
    train=False,
    *,
    gpu="h200",
    gbps=None,
    launch_us=None,
    inductor=False,
    inductor_backend="cpu",
    max_bytes=None,
) -> tuple:
    """Build a random-weight causal LM from a config name, config.json or checkpoint folder,
    and scan it.

    Returns (candidates, meta): meta says what ran (model, shapes, dtype, device, profiled,
    cost model). attn=None asks for sdpa and takes eager for a model that has no sdpa path (BLOOM,
    MPT, Mamba, gpt-oss in transformers 5.24). device=None builds on the CPU when the weights fit
    in AUTO_CPU_BYTES, else on meta. A CPU or CUDA build whose weights and activations are estimated above max_bytes
    (default: half the free memory) is refused before anything is allocated.
    """
    if seq < 1 or batch < 1 or (layers is not None and layers < 1):
        raise ConfigError(f"--seq, --batch, --layers must be >= 1 (got {seq}, {batch}, {layers})")
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"--device {device}: no CUDA device on this machine")
    if inductor and inductor_backend == "cuda" and not torch.cuda.is_available():
        raise ConfigError("--inductor cuda: no CUDA device on this machine (use --inductor cpu)")
    try:
        config = load_config(spec)
        has = getattr(text_config(config), "num_hidden_layers", None)
        if layers and isinstance(has, int) and layers > has:
            raise ConfigError(f"{spec}: --layers {layers} is more than its {has} layers")
        if layers:
            config = load_config(spec, num_hidden_layers=layers)
    except ConfigError:
        raise
    except (ValueError, TypeError) as e:  # transformers' own validation of the values
        raise ConfigError(f"{spec}: {_first_line(e)}") from None
    text = text_config(config)  # the language model's config in a composite one
    vocab = getattr(text, "vocab_size", None)
    if not isinstance(vocab, int) or vocab < 1:
        raise ConfigError(f"{spec}: vocab_size must be a positive integer, got {vocab!r}")
    torch_dtype = getattr(torch, dtype)
    notes, tried = [], attn or "sdpa"
    try:
        model = _build(spec, config, "meta", torch_dtype, tried)
    except ConfigError:
        if attn is not None:  # asked for by name: say why it cannot be had
            raise
        tried = "eager"
        model = _build(spec, config, "meta", torch_dtype, tried)  # its error if this fails too
        notes.append(f"{type(model).__name__} has no sdpa attention; scanned with eager")
    attn = getattr(model.config, "_attn_implementation", None) or tried
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    if device is None:
        device = "cpu" if weight_bytes <= AUTO_CPU_BYTES else "meta"
        if device == "meta":
            notes.append(
                f"{weight_bytes / 1e9:.1f} GB of weights, scanned on meta (shapes only, "
                "no profile); pass --device cpu or cuda to build and profile it"
            )
    if device != "meta":
        shape = dict(batch=batch, seq=seq, train=train, eager=attn == "eager")
        check_size(spec, config, weight_bytes, torch_dtype, device, max_bytes, **shape)
        model = _build(spec, config, device, torch_dtype, attn)
    if device == "meta" and attn == "sdpa":
        notes.append("sdpa runs its math path on meta: its softmax chain is left out")
    note = f"{spec}: {'; '.join(notes)}" if notes else None
    model.train(train)
    ids = torch.randint(0, vocab, (batch, seq), device=device)
    kwargs = {"labels": ids} if train else {}
    cost = dict(gpu=gpu, gbps=gbps, launch_us=launch_us)
    try:
        cands = scan(
            model,
            (ids,),
            kwargs,
            small_bytes=small_bytes,
            backward=train,
            inductor=inductor,
            inductor_backend=inductor_backend,
            **cost,
        )
    except (RuntimeError, ValueError, TypeError) as e:
        if isinstance(e, ExportError):
            raise
        raise ConfigError(f"{spec}: cannot scan this config: {_first_line(e)}") from None
    meta = {
        "model": type(model).__name__,
        "config": spec,
        "layers": getattr(text, "num_hidden_layers", None),
        "batch": batch,
        "seq": seq,
        "dtype": dtype,
        "device": str(device),
        "attn": attn,
        "train": train,
        "profiled": device != "meta",
        "small_bytes": small_bytes,
        "note": note,
        "gpu": gpu,
        **cost_model(gpu, gbps, launch_us),
        "inductor": inductor,
        "inductor_backend": inductor_backend if inductor else None,
    }
    return cands, meta


# %% src_literate/post1_qwen3_fusion_reading.pmd::cli_main
@contextlib.contextmanager
def _quiet_stderr():
    """Silence what C++ libraries write to stderr (the profiler's start and stop lines)."""
    sys.stderr.flush()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def main(argv=None) -> int:
    """The command line `qwen3-fusion-scan`; returns the exit code (2 on bad input, with one
    line on stderr)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # usage errors (exit code 2) and --help (0)
        return int(e.code or 0)
    torch_log = logging.getLogger("torch")
    level = torch_log.level
    torch_log.setLevel(logging.ERROR)  # export's notes on shapes are not errors
    try:
        with _quiet_stderr():
            cands, meta = scan_config(
                args.config,
                args.layers,
                args.seq,
                args.batch,
                args.dtype,
                args.device,
                args.attn,
                int(args.small_mb * 2**20),
                args.train,
                gpu=args.gpu,
                gbps=args.gbps,
                launch_us=args.launch_us,
                inductor=bool(args.inductor),
                inductor_backend=args.inductor or "cpu",
                max_bytes=args.max_gb * 1e9 if args.max_gb else None,
            )
    except (ConfigError, ExportError) as e:
        print(f"qwen3-fusion-scan: error: {e}", file=sys.stderr)
        return 2
    finally:
        torch_log.setLevel(level)
    if meta["note"]:
        print(f"qwen3-fusion-scan: note: {meta['note']}", file=sys.stderr)
    summed = total(cands)  # over every top-level row, also those --top leaves out
    cands = cands[: args.top] if args.top else cands
    if args.json:
        data = {
            "schema_version": SCHEMA_VERSION,
            "meta": meta,
            "total": {k: str(v) if is_symbolic(v) else round(v, 1) for k, v in summed.items()},
            "candidates": [c.to_dict(args.timings) for c in cands],
        }
        print(json.dumps(data, indent=1, ensure_ascii=False))
    else:
        print(format_table(cands, args.timings))
    return 0


if __name__ == "__main__" and globals().get("__file__", "").endswith("scan_cli.py"):
    sys.exit(main())  # as `python -m qwen3_fusion.scan_cli`; not when the chunk runs in a notebook
