# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""qwen3_fusion.signals: Candidate, Instance, SIGNALS and 7 more (see __all__).

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "Candidate",
    "Instance",
    "SIGNALS",
    "SMALL_BYTES",
    "format_bytes",
    "format_table",
    "main",
    "profile_nodes",
    "scan",
    "scan_config",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::signals_head
"""Find operator-fusion candidates in any module torch.export accepts, by four signals.

    python -m qwen3_fusion.signals --config qwen3-tiny
    python -m qwen3_fusion.signals --config qwen3-0.6b --device meta --seq 2048 --json

`scan(model, example_inputs)` exports the model, groups its ops (memory-bound chains; matmuls
that read one input), profiles the graph node by node, and ranks the groups by the bytes fusing
them would save for the example shapes. Each candidate says which signals fired: small_kernels,
memory_bound_chain, repeated, one_step (see SIGNALS).
"""

import argparse
import contextlib
import json
import logging
import os
import sys
from dataclasses import asdict, dataclass, field

import torch
from torch.utils import _pytree as pytree

from qwen3_fusion.configs import ConfigError, build_model, load_config
from qwen3_fusion.fusion_groups import OpGraph, anchor_line, find_groups, traffic
from qwen3_fusion.reading import ExportError, export_graph, op_kind, package_path

SIGNALS = {
    "small_kernels": "小 kernel 密集: >= 3 launches, each moving < small_bytes on average",
    "memory_bound_chain": "连续 memory-bound: >= 2 elementwise/reduction/copy ops in a row",
    "repeated": "重复 pattern: the same ops at the same place occur >= 2 times",
    "one_step": "逻辑本可一步: all the memory-bound work of one module call or source line, "
    "or GEMMs that read one input",
}
SMALL_BYTES = 16 << 20  # a heuristic: kernels that move less are "small" (--small-mb)


# %% src_literate/post1_qwen3_fusion_reading.pmd::candidate
@dataclass(frozen=True)
class Instance:
    """One occurrence of a candidate: where it is and what it costs for the example shapes."""

    module: str  # module path, from nn_module_stack
    source: str  # file:first-last line, from the stack traces export recorded ("?" if unknown)
    nodes: tuple  # names of the graph nodes it spans
    launches: int  # kernels (GPU) or data-moving aten ops (CPU) seen by the profiler
    bytes_unfused: int  # every op reads its inputs and writes its output
    bytes_fused: int  # one kernel reads the group's inputs once, writes what leaves it
    cpu_us: float = 0.0
    device_us: float = 0.0


@dataclass
class Candidate:
    """A fusion candidate: one pattern of ops, every place it occurs, the signals it fires."""

    label: str
    kind: str  # "memory-bound chain" or "shared-input matmuls"
    module_type: str
    ops: tuple  # op names of one occurrence, in graph order
    signals: tuple = ()
    instances: list = field(default_factory=list)
    rank: int = 0

    occurrences = property(lambda self: len(self.instances))
    launches = property(lambda self: sum(i.launches for i in self.instances))
    bytes_unfused = property(lambda self: sum(i.bytes_unfused for i in self.instances))
    bytes_fused = property(lambda self: sum(i.bytes_fused for i in self.instances))

    def to_dict(self, timings: bool = False) -> dict:
        """Plain data for --json; the timings (they vary run to run) only when asked."""
        d = asdict(self)
        for key in ("occurrences", "launches", "bytes_unfused", "bytes_fused"):
            d[key] = getattr(self, key)
        for inst in d["instances"] if not timings else []:
            del inst["cpu_us"], inst["device_us"]
        return d


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
    return len(event.kernels) + sum(_kernels(c) for c in event.cpu_children)


def _launches(event) -> int:
    """Kernels under a profiler range; without a GPU, the aten ops in it that move data."""
    ops = [c for c in event.cpu_children if c.name.startswith("aten::")]
    moving = sum(op_kind(c.name) not in ("view", "maybe_copy") or bool(c.cpu_children) for c in ops)
    return _kernels(event) or moving


def profile_nodes(gm: torch.fx.GraphModule, flat_inputs: list) -> dict:
    """{node name: (launches, cpu_us, device_us)} from one profiled run after a warm-up."""
    cuda = any(isinstance(t, torch.Tensor) and t.is_cuda for t in flat_inputs)
    activities = [torch.profiler.ProfilerActivity.CPU]
    activities += [torch.profiler.ProfilerActivity.CUDA] if cuda else []
    with torch.no_grad():
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
    """The module a group belongs to: its one module; for GEMMs in sibling Linears, their
    parent; else the shallowest module it touches."""
    homes = {g.stmts[m][-1].module for m in members}
    if len(homes) == 1:
        return homes.pop()
    if kind == "shared-input matmuls" and all(g.leaf.get(h, False) for h in homes):
        parents = {h.rsplit(".", 1)[0] if "." in h else "" for h in homes}
        if len(parents) == 1:
            return parents.pop()
    return min(homes, key=lambda p: (len(p.split(".")) if p else 0, p))


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
    if g.leaf.get(home, False):
        same = {n for n in g.stmts if g.kind[n] == "memory" and g.stmts[n][-1].module == home}
    else:
        lines = {anchor_line(g, m) for m in members}
        same = {n for n in g.stmts if g.kind[n] == "memory" and anchor_line(g, n) in lines}
    return same <= set(members)


# %% src_literate/post1_qwen3_fusion_reading.pmd::pattern
def _module_stack(node) -> list:
    """[(module path, class path)] of the modules a node was traced in, outermost first."""
    return list(node.meta.get("nn_module_stack", {}).values())


def _ops(members) -> tuple:
    """Op names of a group in graph order, e.g. ("silu", "mul")."""
    return tuple(getattr(m.target, "__name__", str(m.target)).split(".")[0] for m in members)


def _pattern(g: OpGraph, kind: str, members, types: dict) -> tuple:
    """(key, label) of a group: occurrences with equal keys are one candidate."""
    home = _home(g, members, kind)
    mtype, ops = types.get(home, "?"), _ops(members)
    if kind == "shared-input matmuls":
        names = "+".join(g.stmts[m][-1].module.rsplit(".", 1)[-1] for m in members)
        return (kind, mtype, names), f"{mtype}: {names}"
    if g.leaf.get(home, False):
        return (kind, mtype, ops), mtype
    source = _source(g, members, home)  # name it by its line and ops: "Qwen3MLP:82 silu·mul"
    line = "" if source == "?" else ":" + source.rsplit(":", 1)[-1]
    return (kind, mtype, source, ops), f"{mtype}{line} " + "·".join(dict.fromkeys(ops))


def _instance(g: OpGraph, kind: str, members, prof: dict) -> Instance:
    home = _home(g, members, kind)
    unfused, fused = traffic(g, members)
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
def scan(
    model,
    example_inputs=(),
    example_kwargs=None,
    *,
    profile=None,
    min_ops=2,
    small_bytes=SMALL_BYTES,
) -> list:
    """Ranked fusion candidates of `model` for the example inputs (see the module docstring).

    profile=None profiles unless the model or the inputs are on the meta device; without a
    profile every op counts as one launch. Raises ExportError if torch.export rejects the model.
    """
    gm = export_graph(model, tuple(example_inputs), example_kwargs).module()
    g = OpGraph(gm, model)
    flat = pytree.tree_leaves((tuple(example_inputs), example_kwargs or {}))
    tensors = [t for t in flat if isinstance(t, torch.Tensor)] + list(model.parameters())
    if profile is None:
        profile = not any(t.is_meta for t in tensors)
    prof = profile_nodes(gm, flat) if profile else {}
    types = {p: c.split(".")[-1] for n in g.nodes for p, c in _module_stack(n)}
    found, one_step = {}, {}
    for kind, members in find_groups(g, min_ops):
        key, label = _pattern(g, kind, members, types)
        if key not in found:
            home = _home(g, members, kind)
            found[key] = Candidate(label, kind, types.get(home, "?"), _ops(members))
            one_step[key] = kind == "shared-input matmuls" or _one_step(g, members, home)
        found[key].instances.append(_instance(g, kind, members, prof))
    return _rank([_fire(c, one_step[k], small_bytes) for k, c in found.items()])


# %% src_literate/post1_qwen3_fusion_reading.pmd::fire_rank
def _fire(c: Candidate, one_step: bool, small_bytes: int) -> Candidate:
    """Set the signals a candidate fires (see SIGNALS)."""
    fired = {
        "small_kernels": c.launches >= 3 * c.occurrences
        and c.bytes_unfused < small_bytes * c.launches,
        "memory_bound_chain": c.kind == "memory-bound chain",
        "repeated": c.occurrences >= 2,
        "one_step": one_step,
    }
    c.signals = tuple(name for name, on in fired.items() if on)
    return c


def _rank(cands: list) -> list:
    """Most bytes saved first; ties by more signals, then by label."""
    cands.sort(key=lambda c: (c.bytes_fused - c.bytes_unfused, -len(c.signals), c.label))
    for i, c in enumerate(cands, 1):
        c.rank = i
    return cands


# %% src_literate/post1_qwen3_fusion_reading.pmd::format_table
def format_bytes(n: float) -> str:
    """Decimal units, as bandwidths are quoted (1 MB = 1e6 bytes)."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{int(n)} B"


def format_table(cands: list, timings: bool = False) -> str:
    """The candidates as a fixed-width table: one row each, one column per signal."""
    head = f"{'#':>2}  {'candidate':<40} {'x':>3} {'ops':>3} {'launch':>6} {'unfused':>9} "
    head += f"{'fused':>9}  small chain repeat 1-step" + ("  cpu_us dev_us" if timings else "")
    rows = [head, "-" * len(head)]
    for c in cands:
        row = f"{c.rank:>2}  {c.label[:40]:<40} {c.occurrences:>3} {len(c.ops):>3} {c.launches:>6} "
        row += f"{format_bytes(c.bytes_unfused):>9} {format_bytes(c.bytes_fused):>9}"
        for name, width in zip(SIGNALS, (7, 6, 7, 7), strict=True):
            row += f"{'yes' if name in c.signals else '-':>{width}}"
        if timings:
            cpu, dev = (sum(getattr(i, k) for i in c.instances) for k in ("cpu_us", "device_us"))
            row += f" {cpu:>7.0f} {dev:>6.0f}"
        rows.append(row)
    return "\n".join(rows)


# %% src_literate/post1_qwen3_fusion_reading.pmd::cli_parser
class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit code 2, as argparse does)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m qwen3_fusion.signals", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="qwen3-0.6b, qwen3-tiny or a config.json path")
    p.add_argument("--layers", type=int, help="cut the model to this many decoder layers")
    p.add_argument("--seq", type=int, default=64, help="sequence length (default 64)")
    p.add_argument("--batch", type=int, default=1, help="batch size (default 1)")
    p.add_argument("--dtype", choices=("bfloat16", "float32"), default="bfloat16")
    p.add_argument("--device", default="cpu", help="cpu, cuda, or meta (shapes only, no profile)")
    p.add_argument(
        "--attn",
        choices=("eager", "sdpa"),
        default="eager",
        help="attention implementation; eager shows the softmax path (default)",
    )
    p.add_argument(
        "--small-mb",
        type=float,
        default=SMALL_BYTES / 2**20,
        help="signal 1 threshold: mean MiB moved per launch (default 16)",
    )
    p.add_argument("--top", type=int, default=0, help="show only the first N candidates")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--timings", action="store_true", help="add profiled times (they vary)")
    return p


# %% src_literate/post1_qwen3_fusion_reading.pmd::scan_config
def scan_config(
    spec: str,
    layers=None,
    seq=64,
    batch=1,
    dtype="bfloat16",
    device="cpu",
    attn="eager",
    small_bytes=SMALL_BYTES,
) -> list:
    """Build a random-weight causal LM from a config name or config.json and scan it."""
    if seq < 1 or batch < 1 or (layers is not None and layers < 1):
        raise ConfigError(f"--seq, --batch, --layers must be >= 1 (got {seq}, {batch}, {layers})")
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"--device {device}: no CUDA device on this machine")
    config = load_config(spec, **({"num_hidden_layers": layers} if layers else {}))
    try:
        model = build_model(config, device, getattr(torch, dtype), attn_implementation=attn)
    except (RuntimeError, ValueError, TypeError) as e:
        raise ConfigError(f"{spec}: cannot build a model on {device}: {e}") from None
    ids = torch.randint(0, config.vocab_size, (batch, seq), device=device)
    return scan(model, (ids,), {"use_cache": False}, small_bytes=small_bytes)


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
    """The command line; returns the exit code (2 on bad input, with one line on stderr)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # usage errors (exit code 2) and --help (0)
        return int(e.code or 0)
    torch_log = logging.getLogger("torch")
    level = torch_log.level
    torch_log.setLevel(logging.ERROR)  # export's notes on shapes are not errors
    try:
        with _quiet_stderr():
            cands = scan_config(
                args.config,
                args.layers,
                args.seq,
                args.batch,
                args.dtype,
                args.device,
                args.attn,
                int(args.small_mb * 2**20),
            )
    except (ConfigError, ExportError) as e:
        print(f"python -m qwen3_fusion.signals: error: {e}", file=sys.stderr)
        return 2
    finally:
        torch_log.setLevel(level)
    cands = cands[: args.top] if args.top > 0 else cands
    if args.json:
        print(json.dumps([c.to_dict(args.timings) for c in cands], indent=1, ensure_ascii=False))
    else:
        print(format_table(cands, args.timings))
    return 0


if __name__ == "__main__" and globals().get("__file__", "").endswith("signals.py"):
    sys.exit(main())  # as `python -m qwen3_fusion.signals`; not when the chunk runs in a notebook
