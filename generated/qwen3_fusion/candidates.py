# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""Fusion candidates: what `qwen3_fusion.signals.scan` reports, and how each row is named.

`Candidate` is one pattern of ops with every place it occurs (`Instance`); `profile_nodes` runs
an exported graph node by node under the profiler; `describe` gives a group of nodes its home
module, source lines and label (known patterns by name, from `qwen3_fusion.patterns`);
`containers` finds, for each candidate, the smallest larger one that holds all its nodes, so
that nested rows are not counted twice.

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "Candidate",
    "Instance",
    "containers",
    "profile_nodes",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::candidates_head
from dataclasses import asdict, dataclass, field

import torch

from qwen3_fusion.fusion_groups import OpGraph, anchor_line, is_symbolic, op_name, traffic
from qwen3_fusion.patterns import compact, describe_ops, gemm_name
from qwen3_fusion.reading import op_kind, package_path


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
    patterns: tuple = ()  # known patterns it holds, e.g. ("RMSNorm", "RoPE")
    parent: int = 0  # rank of the smallest larger candidate holding all its nodes; 0: top level
    us_saved: object = 0.0  # estimated µs saved per step on the cost model's GPU (see rank)
    inductor: str = ""  # what torch.compile does with it: "fused", "partly", "not"; "": unchecked

    occurrences = property(lambda self: len(self.instances))
    launches = property(lambda self: sum(i.launches for i in self.instances))
    bytes_unfused = property(lambda self: sum(i.bytes_unfused for i in self.instances))
    bytes_fused = property(lambda self: sum(i.bytes_fused for i in self.instances))
    bytes_saved = property(lambda self: self.bytes_unfused - self.bytes_fused)
    # fused, each occurrence is one kernel
    launches_saved = property(lambda self: max(self.launches - self.occurrences, 0))

    def to_dict(self, timings: bool = False) -> dict:
        """Plain data for --json; symbolic byte counts as strings; timings only when asked."""
        d = asdict(self)
        for key in ("occurrences", "launches", "launches_saved"):
            d[key] = getattr(self, key)
        for key in ("bytes_unfused", "bytes_fused", "bytes_saved"):
            d[key] = getattr(self, key)
        d["us_saved"] = self.us_saved if is_symbolic(self.us_saved) else round(self.us_saved, 1)
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
    # a kernel is listed on its aten op and again on runtime events under it ("Activity Buffer
    # Request", "Lazy Function Loading" on an H200): counted once
    return max(len(own), sum(_kernels(c) for c in event.cpu_children))


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
        # warm-up, profiled too: the first run of a process loads each kernel's code
        # ("Lazy Function Loading" inside the launch), which the timed run should not hold
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
    """The module a group belongs to: its one leaf module (a norm); for GEMMs that read one
    input, the closest module holding them (q/k/v: the attention; q/k/v + fc1: the layer); else the shallowest module whose forward runs part of it."""
    paths = {g.module[m] for m in members}
    if len(paths) == 1 and (kind != "gemm epilogue" or g.leaf.get(next(iter(paths)), False)):
        return paths.pop()
    if kind == "shared-input matmuls":  # the closest module that holds them all
        return _common([h.rsplit(".", 1)[0] if g.leaf.get(h, False) else h for h in paths])
    owners = {g.owner(m) for m in members if g.kind[m] == "memory"} or {g.owner(members[0])}
    return min(owners, key=lambda p: (len(p.split(".")) if p else 0, p))


def _common(paths) -> str:
    """The longest common module path of `paths` ("" for the root)."""
    split = [p.split(".") if p else [] for p in paths]
    common = []
    for level in zip(*split, strict=False):  # paths of different depths
        if len(set(level)) > 1:
            break
        common.append(level[0])
    return ".".join(common)


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


def _pattern(g: OpGraph, kind: str, members, types: dict) -> tuple:
    """(key, label, known patterns) of a group: occurrences with equal keys are one candidate.

    The key holds the home module's class, the parts and the ops, not line numbers: the same
    computation written on one line or on two is one candidate. In a training step's graph the
    label says which pass: "(backward)", or "(fwd+bwd)" when a group spans both.
    """
    key, label, named = _describe(g, kind, members, types)
    passes = {bool(m.meta.get("backward")) for m in members}
    if passes == {False}:
        return key, label, named
    which = "backward" if passes == {True} else "fwd+bwd"
    return (*key, which), f"{label} ({which})", named


def _describe(g: OpGraph, kind: str, members, types: dict) -> tuple:
    """(key, label, known patterns) of a group, whatever the pass. The key is made of module
    and op names only; the label names known patterns (see qwen3_fusion.patterns)."""
    home = _home(g, members, kind)
    mtype, ops = types.get(home, "?"), _ops(members)
    if kind == "shared-input matmuls":
        names = [gemm_name(g, m) for m in members]
        return (kind, mtype, "+".join(names)), f"{mtype}: {compact(names, '+')}", ()
    gemms = [m for m in members if g.kind[m] == "gemm"]
    rest = [m for m in members if m not in gemms]
    named, text, covered = describe_ops(g, rest, home)
    key = (kind, mtype, _parts(g, members, home), ops)
    if gemms:
        return key, f"{mtype}: {compact([gemm_name(g, m) for m in gemms], '+')} -> {text}", named
    if g.leaf.get(home, False):
        # a norm module alone keeps its class name when that names the pattern already
        if covered and len(named) == 1 and named[0].lower() in mtype.lower():
            return key, mtype, named
        attr = home.rsplit(".", 1)[-1]  # which Linear, which norm ("" for the root)
        return key, f"{mtype}{' ' + attr if attr else ''}: {text}", named
    return key, f"{mtype}: {text}", named


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


# %% src_literate/post1_qwen3_fusion_reading.pmd::containers
def containers(cands: list) -> dict:
    """{id(candidate): the smallest other candidate each of whose occurrences' nodes hold all
    of this one's}: SwiGLU and the gate/up merge sit inside gate/up + SwiGLU. Its saving is
    part of the larger row's, so only rows without a container add up to a total."""
    sets = {id(c): [frozenset(i.nodes) for i in c.instances] for c in cands}
    size = {id(c): len(c.instances[0].nodes) for c in cands}
    out = {}
    for c in cands:
        holders = [
            d
            for d in cands
            if size[id(d)] > size[id(c)]
            and all(any(s <= t for t in sets[id(d)]) for s in sets[id(c)])
        ]
        if holders:
            out[id(c)] = min(holders, key=lambda d: size[id(d)])
    return out
