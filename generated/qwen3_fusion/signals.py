# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""Find operator-fusion candidates in any module torch.export accepts, by four signals.

    python -m qwen3_fusion.signals --config qwen3-tiny
    python -m qwen3_fusion.signals --config qwen3-0.6b --seq 2048 --train --inductor --json

`scan(model, example_inputs)` exports the model, groups its ops (memory-bound chains; matmuls
that read one input; GEMMs whose output only an activation or a loss reads), profiles the graph
node by node, and ranks the groups by the time fusing them would save on a named GPU (bytes at
its copy bandwidth, plus launches at launch_us when the host is the bottleneck; see GPUS). A
group inside a larger one (SwiGLU inside gate/up + SwiGLU) is listed under it (`parent`), and
only top-level rows add up (`total`). On meta, sdpa's math-path softmax is left out. With inductor=True the graph is also compiled by Inductor and each candidate says
whether torch.compile already fuses it (qwen3_fusion.inductor_check). Each candidate says which
signals fired: small_kernels, memory_bound_chain, repeated, one_step (see SIGNALS). Chains that
only build masks or positions (no weight or float input upstream) run once per forward: they
rank last, and are dropped when they would save under setup_bytes.

The command line (`qwen3-fusion-scan`, `main`) is qwen3_fusion.scan_cli; its JSON schema is there.

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "GPUS",
    "SETUP_BYTES",
    "SIGNALS",
    "SMALL_BYTES",
    "cost_model",
    "format_bytes",
    "format_table",
    "joint_graph",
    "main",
    "scan",
    "sdpa_math_path",
    "total",
    "training_graph",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::signals_head
import inspect
import sys
import textwrap
import warnings

import torch
import torch.fx.traceback as fx_traceback
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils import _pytree as pytree

from qwen3_fusion.candidates import (
    Candidate,
    _home,
    _instance,
    _module_stack,
    _one_step,
    _ops,
    _pattern,
    containers,
    profile_nodes,
)
from qwen3_fusion.configs import text_config
from qwen3_fusion.fusion_groups import OpGraph, find_groups, is_symbolic
from qwen3_fusion.inductor_check import check_backend, compiled_kernels, inductor_column
from qwen3_fusion.reading import ExportError, export_graph

SIGNALS = {
    "small_kernels": "小 kernel 密集: >= 3 launches, each moving < small_bytes on average",
    "memory_bound_chain": "连续 memory-bound: >= 2 elementwise/reduction/copy ops in a row",
    "repeated": "重复 pattern: the same ops in the same place occur >= 2 times",
    "one_step": "逻辑本可一步: all the memory-bound work of one module call or source line, "
    "GEMMs that read one input, or a GEMM and the activation or loss after it",
}
SMALL_BYTES = 16 << 20  # a heuristic: kernels that move less are "small" (--small-mb)
SETUP_BYTES = 64 << 10  # mask / position chains that save less are not reported
# the cost model's GPUs: copy bandwidth (GB/s, bytes read + written) and the host time a removed
# launch saves (µs). H200, measured on one H200 (src_literate/results/, 2026-12-03): a 2 GiB
# bf16 device-to-device copy (4 GiB read and written) ran at 4249 GB/s. The launch term is 0:
# a training step at 4 x 2048 is GPU-bound (an eager Qwen3-0.6B x 8 step keeps the GPU busy 97%+),
# so launches hide behind kernels and fusing saves bytes only. When the host is the bottleneck
# (the GPU mostly idle), pass --launch-us: the same step at 1 x 128 costs the host 19-39 µs per
# kernel launched (step time over the 1471 kernels of a steady-state step: 28-39 in four runs on
# one host, 19 in the command line's own run; results/h200_host_probe*.json, h200_train_step_cli.txt).
GPUS = {"h200": {"gbps": 4249.0, "launch_us": 0.0}}


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
    # forward(**kwargs) that hands them on (GraniteMoe) takes use_cache too: the config has one,
    # or its language model's has (a composite config: Gemma3, speech and vision models)
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
    if "use_cache" not in kwargs and (
        "use_cache" in accepted
        or (var_kw and (hasattr(config, "use_cache") or hasattr(text_config(config), "use_cache")))
    ):
        kwargs["use_cache"] = False
    return tuple(example_inputs), kwargs


def cost_model(gpu: str, gbps=None, launch_us=None) -> dict:
    """{gbps, launch_us} of a GPU in GPUS, with the figures given overriding it (0 counts)."""
    given = {"gbps": gbps, "launch_us": launch_us}
    return {k: v if given[k] is None else given[k] for k, v in GPUS[gpu].items()}


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
    gpu="h200",
    gbps=None,
    launch_us=None,
    inductor=False,
    inductor_backend="cpu",
) -> list:
    """Ranked fusion candidates of `model` for the example inputs (see the module docstring).

    example_inputs: a tensor or a tuple of positional inputs. profile=None profiles unless the
    model or the inputs are on the meta device; without a profile every op counts as one
    launch. backward=True scans one training step, forward and backward (the outputs must
    hold a loss: pass labels). gpu names the cost model (GPUS); gbps and launch_us override
    its figures. inductor=True also compiles the graph (seconds to minutes) with Inductor's
    `inductor_backend` ("cpu" or "cuda") and sets each candidate's `inductor`. Raises
    ExportError if torch.export rejects the model or inputs.
    """
    cost = cost_model(gpu, gbps, launch_us)
    if inductor:
        check_backend(inductor_backend)  # before the export, which can take minutes
    args, kwargs = _example(model, example_inputs, example_kwargs)
    if backward:
        gm, flat, live = training_graph(model, args, kwargs)
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
        key, label, named = _pattern(g, kind, members, types)
        if key not in found:
            home = _home(g, members, kind)
            found[key] = Candidate(label, kind, types.get(home, "?"), _ops(members))
            found[key].setup = not any(g.live[m] for m in members)
            found[key].patterns = named
            chain = sum(g.kind[m] == "memory" for m in members) >= 2
            one = kind != "memory-bound chain" or _one_step(g, members, home)
            facts[key] = (chain, one)
        found[key].instances.append(_instance(g, kind, members, prof))
    cands = [_fire(c, *facts[k], small_bytes) for k, c in found.items()]
    cands = [c for c in cands if not c.setup or _at_least(c.bytes_saved, setup_bytes)]
    if sdpa_math_path(model, tensors):
        cands = [c for c in cands if not _in_attention_softmax(c)]
    if inductor:
        gemms = {n.name for n in g.nodes if g.kind[n] == "gemm"}
        backward_nodes = {n.name for n in g.nodes if n.meta.get("backward")}
        try:
            kernels = compiled_kernels(gm, flat, inductor_backend)
            inductor_column(cands, kernels, gemms, backward_nodes)
        except Exception as e:  # noqa: BLE001 - any compile failure is one line in the column
            raise ExportError(f"Inductor could not compile the scanned graph: {e}") from None
    return _rank(cands, cost["gbps"], cost["launch_us"])


# %% src_literate/post1_qwen3_fusion_reading.pmd::sdpa_math
def sdpa_math_path(model, tensors) -> bool:
    """Whether sdpa will run its math path only because the tensors are on meta: there the score
    matrix and its softmax show up in the graph, where a GPU's fused attention never writes
    them to memory. scan() leaves those chains out."""
    attn = getattr(getattr(model, "config", None), "_attn_implementation", None)
    return attn == "sdpa" and any(t.is_meta for t in tensors)


def _in_attention_softmax(c: Candidate) -> bool:
    """A softmax chain inside an attention module (sdpa's math path on meta)."""
    return "softmax" in c.patterns and c.module_type.endswith("Attention")


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

    try:
        with fx_traceback.preserve_node_meta():
            joint = make_fx(step, tracing_mode="fake")(train, rest, inputs)
    except RuntimeError as e:  # e.g. a loss that needs no grad: reversible layers (Reformer)
        first = str(e).strip().split("\n")[0]
        raise ExportError(
            f"{type(model).__name__}: its training step could not be traced: {first}"
        ) from None
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


def training_graph(model, args, kwargs) -> tuple:
    """joint_graph, or, when a mixture-of-experts layer's backward has data-dependent shapes,
    joint_graph with its experts run as "batched_mm".

    transformers' grouped_mm fallback (used when tracing fp32 weights) has a Python backward
    in releases before it became a custom op with a fake (5.17 has it, 5.24 does not); fake
    tensors cannot trace its loop over the expert offsets. batched_mm computes the same
    experts with gathers and one bmm, which traces; the scan says so in a warning.
    """
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    try:
        return joint_graph(model, args, kwargs)
    except GuardOnDataDependentSymNode as e:
        configs = {
            id(m.config): m.config
            for m in model.modules()
            if hasattr(m, "is_concatenated")  # what transformers' experts decorator adds
            and getattr(m.config, "_experts_implementation", None) == "grouped_mm"
        }
        if not configs:
            where = str(e).rsplit("Caused by: ", 1)[-1].split("\n")[0]
            raise ExportError(
                f"the backward has a data-dependent shape ({where}); scan the forward only"
            ) from None
    for c in configs.values():
        c._experts_implementation = "batched_mm"
    try:
        warnings.warn(
            "the experts were traced as batched_mm: this transformers' grouped_mm fallback"
            " backward has data-dependent shapes",
            stacklevel=3,
        )
        return joint_graph(model, args, kwargs)
    finally:
        for c in configs.values():
            c._experts_implementation = "grouped_mm"


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


def _rank(cands: list, gbps: float, launch_us: float) -> list:
    """Estimate each candidate's time saved per step (bytes at the copy bandwidth plus the
    launches it removes), nest contained candidates under their container, and order: most
    time saved first, symbolic sizes after numbers, mask and position chains last, ties by
    more signals, then by label; each nested row right after its parent."""
    for c in cands:
        c.us_saved = c.bytes_saved / (gbps * 1e3) + c.launches_saved * launch_us
    holder = containers(cands)

    def key(c):
        t = c.us_saved
        return (c.setup, is_symbolic(t), 0 if is_symbolic(t) else -t, -len(c.signals), c.label)

    ordered = []

    def place(parent):
        for c in sorted((c for c in cands if holder.get(id(c)) is parent), key=key):
            ordered.append(c)
            place(c)

    place(None)
    for i, c in enumerate(ordered, 1):
        c.rank = i
    for c in ordered:
        c.parent = holder[id(c)].rank if id(c) in holder else 0
    return ordered


def total(cands: list) -> dict:
    """Bytes, µs and launches saved per step by the top-level rows (nested ones are inside)."""
    top = [c for c in cands if not c.parent]
    return {
        key: sum((getattr(c, key) for c in top), 0)
        for key in ("bytes_saved", "us_saved", "launches_saved")
    }


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


def format_table(cands: list, timings: bool = False, width: int = 40) -> str:
    """The candidates as a fixed-width table: one row each (labels wrap between words; a
    nested row is indented under its parent), the bytes and estimated µs saved per step,
    Inductor's verdict when checked, one column per signal, where the first occurrence is
    (file:lines), and a total of the top-level rows."""
    inductor = any(c.inductor for c in cands)
    head = f"{'#':>3}  {'candidate':<{width}} {'x':>3} {'launch':>6} {'saved':>9} {'est_us':>8} "
    head += f"{'inductor':>8} " if inductor else ""
    head += " small chain repeat 1-step" + ("  cpu_us dev_us" if timings else "") + "  where"
    rows = [head, "-" * len(head)]
    depth = {}
    for c in cands:
        depth[c.rank] = depth[c.parent] + 1 if c.parent else 0
        indent = "  " * depth[c.rank] + ("└ " if c.parent else "")
        text = c.label + (" (setup: once per forward)" if c.setup else "")
        label = textwrap.wrap(
            text,
            width - len(indent),
            break_long_words=False,
            break_on_hyphens=False,
            initial_indent=indent,
            subsequent_indent="  " * (depth[c.rank] + 1),
        )
        row = f"{c.rank:>3}  {label[0]:<{width}} {c.occurrences:>3} {c.launches:>6} "
        row += f"{_cell(format_bytes(c.bytes_saved), 9)} {_cell(_us(c.us_saved), 8)} "
        row += f"{c.inductor or '?':>8} " if inductor else ""
        for name, w in zip(SIGNALS, (6, 6, 7, 7), strict=True):
            row += f"{'yes' if name in c.signals else '-':>{w}}"
        if timings:
            cpu, dev = (sum(getattr(i, k) for i in c.instances) for k in ("cpu_us", "device_us"))
            row += f" {cpu:>7.0f} {dev:>6.0f}"
        rows.append(row + "  " + c.instances[0].source.rsplit("/", 1)[-1])
        rows += [f"{'':>3}  {more}" for more in label[1:]]
    t = total(cands)
    rows += [
        "-" * len(head),
        f"{'':>3}  {'total of the top-level rows':<{width}} {'':>3} {'':>6} "
        f"{_cell(format_bytes(t['bytes_saved']), 9)} {_cell(_us(t['us_saved']), 8)}",
    ]
    return "\n".join(rows)


def _us(t) -> str:
    """µs with one decimal; a symbolic estimate as 'symbolic'."""
    return "symbolic" if is_symbolic(t) else f"{float(t):.1f}"


# %% src_literate/post1_qwen3_fusion_reading.pmd::cli_entry
def main(argv=None) -> int:
    """The command line `qwen3-fusion-scan` (qwen3_fusion.scan_cli); returns the exit code."""
    from qwen3_fusion.scan_cli import main as cli  # not at the top: scan_cli imports this module

    return cli(argv)


if __name__ == "__main__" and globals().get("__file__", "").endswith("signals.py"):
    sys.exit(main())  # as `python -m qwen3_fusion.signals`; not when the chunk runs in a notebook
