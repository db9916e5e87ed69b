# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""Find operator-fusion candidates in any module torch.export accepts, by four signals.

    python -m qwen3_fusion.signals --config qwen3-tiny
    python -m qwen3_fusion.signals --config qwen3-0.6b --seq 2048 --json

`scan(model, example_inputs)` exports the model, groups its ops (memory-bound chains; matmuls
that read one input; GEMMs whose output only an activation or a loss reads), profiles the graph
node by node, and ranks the groups by the bytes fusing them would save for the example shapes.
Each candidate says which signals fired: small_kernels, memory_bound_chain, repeated, one_step
(see SIGNALS). Chains that only build masks or positions (no weight or float input upstream)
run once per forward: they rank last, and are dropped when they would save under setup_bytes.

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "AUTO_CPU_BYTES",
    "Candidate",
    "Instance",
    "SETUP_BYTES",
    "SIGNALS",
    "SMALL_BYTES",
    "format_bytes",
    "format_table",
    "joint_graph",
    "main",
    "profile_nodes",
    "scan",
    "scan_config",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::signals_head
import argparse
import contextlib
import inspect
import json
import logging
import math
import os
import sys
import textwrap
from dataclasses import asdict, dataclass, field

import torch
import torch.fx.traceback as fx_traceback
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils import _pytree as pytree

from qwen3_fusion.configs import ConfigError, build_model, load_config
from qwen3_fusion.fusion_groups import (
    OpGraph,
    anchor_line,
    find_groups,
    is_symbolic,
    op_name,
    traffic,
)
from qwen3_fusion.reading import ExportError, export_graph, op_kind, package_path

SIGNALS = {
    "small_kernels": "小 kernel 密集: >= 3 launches, each moving < small_bytes on average",
    "memory_bound_chain": "连续 memory-bound: >= 2 elementwise/reduction/copy ops in a row",
    "repeated": "重复 pattern: the same ops in the same place occur >= 2 times",
    "one_step": "逻辑本可一步: all the memory-bound work of one module call or source line, "
    "GEMMs that read one input, or a GEMM and the activation or loss after it",
}
SMALL_BYTES = 16 << 20  # a heuristic: kernels that move less are "small" (--small-mb)
SETUP_BYTES = 64 << 10  # mask / position chains that save less are not reported


# %% src_literate/post1_qwen3_fusion_reading.pmd::candidate
@dataclass(frozen=True)
class Instance:
    """One occurrence of a candidate: where it is and what it costs for the example shapes.

    Byte counts are ints, or sympy expressions when shapes depend on data (str in JSON).
    """

    module: str  # module path, from nn_module_stack
    source: str  # file:first-last line, from the stack traces export recorded ("?" if unknown)
    nodes: tuple  # names of the graph nodes it spans
    launches: int  # kernels (GPU) or data-moving aten ops (CPU) seen by the profiler
    bytes_unfused: object  # every op reads its inputs and writes its output
    bytes_fused: object  # one kernel reads the group's inputs once, writes what leaves it
    cpu_us: float = 0.0
    device_us: float = 0.0


@dataclass
class Candidate:
    """A fusion candidate: one pattern of ops, every place it occurs, the signals it fires."""

    label: str
    kind: str  # "memory-bound chain", "shared-input matmuls" or "gemm epilogue"
    module_type: str
    ops: tuple  # op names of one occurrence, in graph order
    signals: tuple = ()
    instances: list = field(default_factory=list)
    rank: int = 0
    setup: bool = False  # builds masks or positions: runs once per forward, needs no weight

    occurrences = property(lambda self: len(self.instances))
    launches = property(lambda self: sum(i.launches for i in self.instances))
    bytes_unfused = property(lambda self: sum(i.bytes_unfused for i in self.instances))
    bytes_fused = property(lambda self: sum(i.bytes_fused for i in self.instances))
    bytes_saved = property(lambda self: self.bytes_unfused - self.bytes_fused)

    def to_dict(self, timings: bool = False) -> dict:
        """Plain data for --json; symbolic byte counts as strings; timings only when asked."""
        d = asdict(self)
        for key in ("occurrences", "launches", "bytes_unfused", "bytes_fused", "bytes_saved"):
            d[key] = getattr(self, key)
        for inst in d["instances"]:
            if not timings:
                del inst["cpu_us"], inst["device_us"]
        return _plain(d)


def _plain(x):
    """sympy expressions as strings, recursively (JSON has no symbols)."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if is_symbolic(x):
        return str(x)
    return int(x) if hasattr(x, "is_number") else x


# %% src_literate/post1_qwen3_fusion_reading.pmd::profile_nodes
_TAG = "fx_node::"


class _NodeTimer(torch.fx.Interpreter):
    """Runs the exported graph node by node, each inside a profiler range named after it."""

    def run_node(self, n):
        if n.op != "call_function":
            return super().run_node(n)
        with torch.profiler.record_function(_TAG + n.name):
            return super().run_node(n)


def _kernels(event) -> int:
    """Device kernels launched by the aten ops under a profiler event. With CUDA activity a
    range also gets its own GPU-side annotation as a "kernel" of its name: not counted."""
    own = [k for k in event.kernels if not k.name.startswith(_TAG) and k.name != event.name]
    return len(own) + sum(_kernels(c) for c in event.cpu_children)


def _launches(event) -> int:
    """Kernels under a profiler range; without a GPU, the aten ops in it that move data."""
    ops = [c for c in event.cpu_children if c.name.startswith("aten::")]
    moving = sum(op_kind(c.name) not in ("view", "maybe_copy") or bool(c.cpu_children) for c in ops)
    return sum(_kernels(c) for c in event.cpu_children) or moving


def profile_nodes(gm: torch.fx.GraphModule, flat_inputs: list) -> dict:
    """{node name: (launches, cpu_us, device_us)} from one profiled run after a warm-up."""
    cuda = any(isinstance(t, torch.Tensor) and t.is_cuda for t in flat_inputs)
    activities = [torch.profiler.ProfilerActivity.CPU]
    activities += [torch.profiler.ProfilerActivity.CUDA] if cuda else []
    with torch.no_grad():
        # warm-up, profiled too: on an H200 the first profile of a process showed one launch
        # more than the ops it held (5 elementwise ops, 6 launches); later ones matched
        with torch.profiler.profile(activities=activities):
            _NodeTimer(gm).run(*flat_inputs)
        with torch.profiler.profile(activities=activities) as prof:
            _NodeTimer(gm).run(*flat_inputs)
            if cuda:
                torch.cuda.synchronize()
    # with CUDA activity each range also appears as a GPU-side annotation of the same name,
    # without children: only the CPU-side range holds the ops and their kernels
    return {
        e.name[len(_TAG) :]: (_launches(e), e.cpu_time_total, e.device_time_total)
        for e in prof.events()
        if e.name.startswith(_TAG) and e.device_type == torch.autograd.DeviceType.CPU
    }


# %% src_literate/post1_qwen3_fusion_reading.pmd::describe
def _home(g: OpGraph, members, kind: str) -> str:
    """The module a group belongs to: its one leaf module (a norm); for GEMMs in sibling
    Linears, their parent; else the shallowest module whose forward runs part of it."""
    paths = {g.module[m] for m in members}
    if len(paths) == 1 and (kind != "gemm epilogue" or g.leaf.get(next(iter(paths)), False)):
        return paths.pop()
    if kind == "shared-input matmuls" and all(g.leaf.get(h, False) for h in paths):
        parents = {h.rsplit(".", 1)[0] if "." in h else "" for h in paths}
        if len(parents) == 1:
            return parents.pop()
    owners = {g.owner(m) for m in members if g.kind[m] == "memory"} or {g.owner(members[0])}
    return min(owners, key=lambda p: (len(p.split(".")) if p else 0, p))


def _source(g: OpGraph, members, home: str) -> str:
    """file:first-last of the group's lines inside its home module ("?" if unknown)."""
    lines = [st for m in members for st in g.stmts[m] if st.module == home and st.line]
    if not lines:
        return "?"
    nums = sorted({st.line for st in lines})
    span = f"{nums[0]}" if len(nums) == 1 else f"{nums[0]}-{nums[-1]}"
    return f"{package_path(lines[0].file)}:{span}"


def _one_step(g: OpGraph, members, home: str) -> bool:
    """The group holds all the memory-bound work of its module call or of its source lines."""
    memory = [m for m in members if g.kind[m] == "memory"]
    if g.leaf.get(home, False):
        same = {n for n in g.stmts if g.kind[n] == "memory" and g.module[n] == home}
    else:
        lines = {anchor_line(g, m) for m in memory}
        same = {n for n in g.stmts if g.kind[n] == "memory" and anchor_line(g, n) in lines}
    return same <= set(memory)


# %% src_literate/post1_qwen3_fusion_reading.pmd::pattern
def _module_stack(node) -> list:
    """[(module path, class path)] of the modules a node was traced in, outermost first."""
    return list(node.meta.get("nn_module_stack", {}).values())


def _ops(members) -> tuple:
    """Op names of a group in graph order, e.g. ("silu", "mul")."""
    return tuple(op_name(m) for m in members)


def _parts(g: OpGraph, members, home: str) -> tuple:
    """What a group is made of, seen from its home: leaf modules by attribute name, GEMMs by
    module name, other ops by op name; e.g. ("add", "post_attention_layernorm")."""
    parts = []
    for m in members:
        path = g.module[m]
        if g.kind[m] == "gemm" or (path != home and g.leaf.get(path, False)):
            parts.append(path.rsplit(".", 1)[-1] or op_name(m))
        else:
            parts.append("·" + op_name(m))  # an op, not a module
    return tuple(dict.fromkeys(parts))


def _join(parts) -> str:
    """("add", ...) parts as a label: modules joined by " + ", runs of ops by "·"."""
    words = []
    for p in parts:
        if p.startswith("·") and words and words[-1].startswith("·"):
            words[-1] += p  # extend the run of ops
        else:
            words.append(p)
    return " + ".join(w.removeprefix("·") for w in words)


def _pattern(g: OpGraph, kind: str, members, types: dict) -> tuple:
    """(key, label) of a group: occurrences with equal keys are one candidate.

    The key holds the home module's class, the parts and the ops, not line numbers: the same
    computation written on one line or on two is one candidate. In a training step's graph the
    label says which pass: "(backward)", or "(fwd+bwd)" when a group spans both.
    """
    key, label = _describe(g, kind, members, types)
    passes = {bool(m.meta.get("backward")) for m in members}
    if passes == {False}:
        return key, label
    which = "backward" if passes == {True} else "fwd+bwd"
    return (*key, which), f"{label} ({which})"


def _describe(g: OpGraph, kind: str, members, types: dict) -> tuple:
    """(key, label) of a group, whatever the pass."""
    home = _home(g, members, kind)
    mtype, ops = types.get(home, "?"), _ops(members)
    if kind == "shared-input matmuls":
        names = "+".join(g.module[m].rsplit(".", 1)[-1] or op_name(m) for m in members)
        return (kind, mtype, names), f"{mtype}: {names}"
    if kind == "memory-bound chain" and g.leaf.get(home, False):
        return (kind, mtype, ops), mtype
    parts = _parts(g, members, home)
    if kind == "gemm epilogue":
        gemms = [g.module[m].rsplit(".", 1)[-1] for m in members if g.kind[m] == "gemm"]
        rest = [p for p in parts if p not in gemms]
        label = f"{mtype}: {'+'.join(gemms)} -> {_join(rest)}"
    else:
        label = f"{mtype}: {_join(parts)}"
    return (kind, mtype, parts, ops), label


def _instance(g: OpGraph, kind: str, members, prof: dict) -> Instance:
    home = _home(g, members, kind)
    # a fused loss need not return the logits: the GEMM's output leaves only for the loss
    drop = [m for m in members if g.kind[m] == "gemm"] if kind == "gemm epilogue" else []
    unfused, fused = traffic(g, members, unused_outputs=drop)
    stats = [prof.get(m.name, (1, 0.0, 0.0)) for m in members]  # unprofiled: 1 launch per op
    return Instance(
        module=home,
        source=_source(g, members, home),
        nodes=tuple(m.name for m in members),
        launches=sum(s[0] for s in stats),
        bytes_unfused=unfused,
        bytes_fused=fused,
        cpu_us=sum(s[1] for s in stats),
        device_us=sum(s[2] for s in stats),
    )


# %% src_literate/post1_qwen3_fusion_reading.pmd::scan
def _example(model, example_inputs, example_kwargs) -> tuple:
    """(args, kwargs) to export with: a bare tensor is one input; models that take `use_cache`
    get use_cache=False (a KV cache is not a tensor export can return)."""
    if not isinstance(model, torch.nn.Module):
        raise ExportError(f"expected an nn.Module, got {type(model).__name__}")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    if not isinstance(example_inputs, (tuple, list)):
        kind = type(example_inputs).__name__
        raise ExportError(f"example inputs must be a tensor or a tuple of inputs, got {kind}")
    kwargs = dict(example_kwargs or {})
    config = getattr(model, "config", None)
    decoder_inputs = {"decoder_input_ids", "decoder_inputs_embeds", "labels"}
    if getattr(config, "is_encoder_decoder", False) and not decoder_inputs & kwargs.keys():
        raise ExportError(
            f"{type(model).__name__} is an encoder-decoder model: pass decoder inputs too, "
            "e.g. scan(model, (ids,), {'decoder_input_ids': ids})"
        )
    try:
        accepted = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        accepted = {}
    if "use_cache" in accepted and "use_cache" not in kwargs:
        kwargs["use_cache"] = False
    return tuple(example_inputs), kwargs


def scan(
    model,
    example_inputs=(),
    example_kwargs=None,
    *,
    profile=None,
    min_ops=2,
    small_bytes=SMALL_BYTES,
    setup_bytes=SETUP_BYTES,
    backward=False,
) -> list:
    """Ranked fusion candidates of `model` for the example inputs (see the module docstring).

    example_inputs: a tensor or a tuple of positional inputs. profile=None profiles unless the
    model or the inputs are on the meta device; without a profile every op counts as one
    launch. backward=True scans one training step, forward and backward (the outputs must
    hold a loss: pass labels). Raises ExportError if torch.export rejects the model or inputs.
    """
    args, kwargs = _example(model, example_inputs, example_kwargs)
    if backward:
        gm, flat, live = joint_graph(model, args, kwargs)
    else:
        gm, flat, live = export_graph(model, args, kwargs).module(), None, None
    g = OpGraph(gm, model, live)
    flat = flat if backward else pytree.tree_leaves((args, kwargs))
    tensors = [t for t in flat if isinstance(t, torch.Tensor)] + list(model.parameters())
    if profile is None:
        profile = not any(t.is_meta for t in tensors)
    prof = profile_nodes(gm, flat) if profile else {}
    types = {p: c.split(".")[-1] for n in g.nodes for p, c in _module_stack(n)}
    types.setdefault("", type(model).__name__)
    found, facts = {}, {}
    for kind, members in find_groups(g, min_ops):
        key, label = _pattern(g, kind, members, types)
        if key not in found:
            home = _home(g, members, kind)
            found[key] = Candidate(label, kind, types.get(home, "?"), _ops(members))
            found[key].setup = not any(g.live[m] for m in members)
            chain = sum(g.kind[m] == "memory" for m in members) >= 2
            one = kind != "memory-bound chain" or _one_step(g, members, home)
            facts[key] = (chain, one)
        found[key].instances.append(_instance(g, kind, members, prof))
    cands = [_fire(c, *facts[k], small_bytes) for k, c in found.items()]
    return _rank([c for c in cands if not c.setup or _at_least(c.bytes_saved, setup_bytes)])


# %% src_literate/post1_qwen3_fusion_reading.pmd::train_graph
def _loss(outputs):
    """The first scalar floating-point tensor among a model's outputs (HF puts loss first)."""
    for t in pytree.tree_leaves(outputs):
        if isinstance(t, torch.Tensor) and t.dim() == 0 and t.is_floating_point():
            return t
    raise ExportError("backward=True needs a loss among the outputs: pass labels (or a loss)")


def joint_graph(model, args, kwargs) -> tuple:
    """(GraphModule, flat inputs, live inputs) of one training step, forward and backward.

    The model is exported (module paths and source lines land in node.meta), then its graph is
    traced again by make_fx while autograd differentiates the loss; each backward op takes the
    module path and lines of the forward op it differentiates (autograd's sequence number) and
    node.meta["backward"] = True. Flat inputs: trainable weights, other weights and buffers,
    then the example inputs; live inputs: the names of the placeholders that are weights or
    floating-point inputs.
    """
    # private, stable since torch 2.1: what aot_autograd uses to number backward nodes
    from torch._functorch._aot_autograd.logging_utils import setup_stacktrace_preservation_hooks

    gm = export_graph(model, args, kwargs).module()
    named = dict(gm.named_parameters())
    canon = {id(p): k for k, p in named.items()}
    alias = {k: canon[id(p)] for k, p in gm.named_parameters(remove_duplicate=False)}
    train = {k: p for k, p in named.items() if p.requires_grad}
    rest = {**{k: p for k, p in named.items() if k not in train}, **dict(gm.named_buffers())}
    inputs = pytree.tree_leaves((args, kwargs))

    def step(weights, others, inputs):
        values = {k: weights[c] if c in weights else others[c] for k, c in alias.items()}
        with torch.nn.utils.stateless._reparametrize_module(gm, {**others, **values}):
            loss = _loss(torch.fx.Interpreter(gm).run(*inputs))
        setup_stacktrace_preservation_hooks([loss.grad_fn])  # seq_nr on backward nodes
        return loss, torch.autograd.grad(loss, list(weights.values()), allow_unused=True)

    with fx_traceback.preserve_node_meta():
        joint = make_fx(step, tracing_mode="fake")(train, rest, inputs)
    forward = {}
    for n in joint.graph.nodes:
        if n.meta.get("nn_module_stack"):
            forward.setdefault(n.meta.get("seq_nr"), n)
    for n in joint.graph.nodes:
        src = forward.get(n.meta.get("seq_nr"))
        if n.op == "call_function" and not n.meta.get("nn_module_stack") and src is not None:
            # autograd's own ops (gradient accumulation) carry the root's number: they take
            # the place of the deepest backward op they read
            read = [a for a in n.all_input_nodes if a.meta.get("backward")]
            deeper = max(read, key=lambda a: len(a.meta["nn_module_stack"]), default=None)
            if len(src.meta["nn_module_stack"]) <= 1 and deeper is not None:
                src = deeper
            n.meta.update(nn_module_stack=src.meta["nn_module_stack"], backward=True)
            n.meta["stack_trace"] = src.meta.get("stack_trace")
    flat = pytree.tree_leaves((train, rest, inputs))
    weights = [True] * len(train) + [k in named for k in rest]
    weights += [isinstance(t, torch.Tensor) and t.is_floating_point() for t in inputs]
    holders = [n.name for n in joint.graph.nodes if n.op == "placeholder"]
    return joint, flat, {h for h, w in zip(holders, weights, strict=True) if w}


# %% src_literate/post1_qwen3_fusion_reading.pmd::signal_rules
def _fire(c: Candidate, chain: bool, one_step: bool, small_bytes: int) -> Candidate:
    """Set the signals a candidate fires (see SIGNALS); a symbolic size fires no size test."""
    fired = {
        "small_kernels": c.launches >= 3 * c.occurrences
        and _at_least(small_bytes * c.launches, c.bytes_unfused + 1),
        "memory_bound_chain": chain,  # >= 2 memory-bound ops in one group
        "repeated": c.occurrences >= 2,
        "one_step": one_step,  # all the module's (or line's) work; GEMMs with one input
    }
    c.signals = tuple(name for name, on in fired.items() if on)
    return c


# %% src_literate/post1_qwen3_fusion_reading.pmd::rank
def _at_least(n, limit) -> bool:
    """n >= limit for a byte count; False when n is symbolic (its size is unknown)."""
    return not is_symbolic(n) and not is_symbolic(limit) and n >= limit


def _rank(cands: list) -> list:
    """Most bytes saved per step first; symbolic sizes after numbers; mask and position
    chains last; ties by more signals, then by label."""

    def key(c):
        saved = c.bytes_saved
        return (c.setup, is_symbolic(saved), 0 if is_symbolic(saved) else -saved, -len(c.signals))

    cands.sort(key=lambda c: (*key(c), c.label))
    for i, c in enumerate(cands, 1):
        c.rank = i
    return cands


# %% src_literate/post1_qwen3_fusion_reading.pmd::format_table
def format_bytes(n) -> str:
    """Decimal units, as bandwidths are quoted (1 MB = 1e6 bytes); symbols stay symbols."""
    if is_symbolic(n):
        return f"{n} B"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{int(n)} B"


def _cell(text: str, width: int) -> str:
    """Right-aligned, cut with an ellipsis only when a (symbolic) value is wider than the cell."""
    return f"{text if len(text) <= width else text[: width - 1] + '…':>{width}}"


def format_table(cands: list, timings: bool = False, width: int = 36) -> str:
    """The candidates as a fixed-width table: one row each (labels wrap between words), one
    column per signal, and where the first occurrence is (file:lines)."""
    head = f"{'#':>2}  {'candidate':<{width}} {'x':>3} {'ops':>3} {'launch':>6} {'unfused':>9} "
    head += f"{'fused':>9} {'saved':>9}  small chain repeat 1-step"
    head += ("  cpu_us dev_us" if timings else "") + "  where"
    rows = [head, "-" * len(head)]
    for c in cands:
        text = c.label + (" (setup: once per forward)" if c.setup else "")
        label = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
        row = f"{c.rank:>2}  {label[0]:<{width}} {c.occurrences:>3} {len(c.ops):>3} "
        row += f"{c.launches:>6} {_cell(format_bytes(c.bytes_unfused), 9)} "
        row += f"{_cell(format_bytes(c.bytes_fused), 9)} {_cell(format_bytes(c.bytes_saved), 9)} "
        for name, w in zip(SIGNALS, (6, 6, 7, 7), strict=True):
            row += f"{'yes' if name in c.signals else '-':>{w}}"
        if timings:
            cpu, dev = (sum(getattr(i, k) for i in c.instances) for k in ("cpu_us", "device_us"))
            row += f" {cpu:>7.0f} {dev:>6.0f}"
        rows.append(row + "  " + c.instances[0].source.rsplit("/", 1)[-1])
        rows += [f"{'':>2}  {more}" for more in label[1:]]
    return "\n".join(rows)


# %% src_literate/post1_qwen3_fusion_reading.pmd::cli_parser
class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit code 2, as argparse does)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive(cast):
    """An argparse type: a number > 0 (and finite) of the given type."""

    def parse(text):
        try:
            value = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {cast.__name__} value: {text!r}") from None
        if not value > 0 or not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value

    parse.__name__ = f"positive {cast.__name__}"
    return parse


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="qwen3-fusion-scan",
        description="Rank the fusion candidates of a Hugging Face model by the four signals.",
    )
    p.add_argument("--config", required=True, help="qwen3-0.6b, qwen3-tiny or a config.json path")
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
        default="sdpa",
        help="attention implementation (default sdpa, transformers' default); eager shows "
        "the softmax path",
    )
    p.add_argument("--train", action="store_true", help="one training step: labels, loss, backward")
    p.add_argument(
        "--small-mb",
        type=_positive(float),
        default=SMALL_BYTES / 2**20,
        help="signal 1 threshold: mean MiB moved per launch (default 16)",
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
    except (RuntimeError, ValueError, TypeError, AttributeError) as e:
        raise ConfigError(f"{spec}: cannot build a model on {device}: {_first_line(e)}") from None


def _first_line(e: BaseException) -> str:
    return (str(e).strip().split("\n") or [""])[0]


def scan_config(
    spec: str,
    layers=None,
    seq=64,
    batch=1,
    dtype="bfloat16",
    device=None,
    attn="sdpa",
    small_bytes=SMALL_BYTES,
    train=False,
) -> tuple:
    """Build a random-weight causal LM from a config name or config.json and scan it.

    Returns (candidates, meta): meta says what ran (model, shapes, dtype, device, profiled).
    device=None builds on the CPU when the weights fit in AUTO_CPU_BYTES, else on meta.
    """
    if seq < 1 or batch < 1 or (layers is not None and layers < 1):
        raise ConfigError(f"--seq, --batch, --layers must be >= 1 (got {seq}, {batch}, {layers})")
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"--device {device}: no CUDA device on this machine")
    try:
        config = load_config(spec, **({"num_hidden_layers": layers} if layers else {}))
    except (ValueError, TypeError) as e:  # transformers' own validation of the values
        raise ConfigError(f"{spec}: {_first_line(e)}") from None
    vocab = getattr(config, "vocab_size", None)
    if not isinstance(vocab, int) or vocab < 1:
        raise ConfigError(f"{spec}: vocab_size must be a positive integer, got {vocab!r}")
    torch_dtype = getattr(torch, dtype)
    model = _build(spec, config, "meta", torch_dtype, attn)
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    note = None
    if device is None:
        device = "cpu" if weight_bytes <= AUTO_CPU_BYTES else "meta"
        if device == "meta":
            note = (
                f"{spec}: {weight_bytes / 1e9:.1f} GB of weights, scanned on meta (shapes only, "
                "no profile); pass --device cpu or cuda to build and profile it"
            )
    if device != "meta":
        model = _build(spec, config, device, torch_dtype, attn)
    model.train(train)
    ids = torch.randint(0, vocab, (batch, seq), device=device)
    kwargs = {"labels": ids} if train else {}
    try:
        cands = scan(model, (ids,), kwargs, small_bytes=small_bytes, backward=train)
    except (RuntimeError, ValueError, TypeError) as e:
        if isinstance(e, ExportError):
            raise
        raise ConfigError(f"{spec}: cannot scan this config: {_first_line(e)}") from None
    meta = {
        "model": type(model).__name__,
        "config": spec,
        "layers": getattr(config, "num_hidden_layers", None),
        "batch": batch,
        "seq": seq,
        "dtype": dtype,
        "device": str(device),
        "attn": attn,
        "train": train,
        "profiled": device != "meta",
        "small_bytes": small_bytes,
        "note": note,
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
            )
    except (ConfigError, ExportError) as e:
        print(f"qwen3-fusion-scan: error: {e}", file=sys.stderr)
        return 2
    finally:
        torch_log.setLevel(level)
    if meta["note"]:
        print(f"qwen3-fusion-scan: note: {meta['note']}", file=sys.stderr)
    cands = cands[: args.top] if args.top else cands
    if args.json:
        data = {"meta": meta, "candidates": [c.to_dict(args.timings) for c in cands]}
        print(json.dumps(data, indent=1, ensure_ascii=False))
    else:
        print(format_table(cands, args.timings))
    return 0


if __name__ == "__main__" and globals().get("__file__", "").endswith("signals.py"):
    sys.exit(main())  # as `python -m qwen3_fusion.signals`; not when the chunk runs in a notebook
