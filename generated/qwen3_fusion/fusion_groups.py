# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""qwen3_fusion.fusion_groups: OpGraph, Statement, anchor_line and 10 more (see __all__).

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "OpGraph",
    "Statement",
    "anchor_line",
    "find_groups",
    "memory_groups",
    "merge_siblings",
    "node_kind",
    "node_value",
    "shared_input_matmuls",
    "statements",
    "tensor_bytes",
    "tensor_inputs",
    "traffic",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::fg_head
"""From an exported graph to fusion groups: what each op is, where it comes from, what it moves.

`OpGraph` classifies the nodes of a torch.export graph (gemm / memory / view / skip) and reads
each node's call path from node.meta; `find_groups` groups memory-bound ops the way a fusing
compiler could and finds GEMMs that read one input; `traffic` counts the bytes a group moves,
from the fake tensors in node.meta["val"].
"""

import collections
import operator
import re
from dataclasses import dataclass

import torch
from torch.utils import _pytree as pytree

from qwen3_fusion.reading import op_kind


# %% src_literate/post1_qwen3_fusion_reading.pmd::node_values
def tensor_bytes(t) -> int:
    """Bytes a kernel touches to read or write `t`: broadcast (stride-0) dims count once."""
    if not isinstance(t, torch.Tensor):
        return 0
    n = 1
    for size, stride in zip(t.shape, t.stride(), strict=True):
        n *= size if stride != 0 else 1
    return n * t.element_size()


def node_value(node):
    """The example value export recorded for a node: a FakeTensor, a tuple of them, or None."""
    return node.meta.get("val") if isinstance(node, torch.fx.Node) else None


def tensor_inputs(node) -> list:
    """The distinct argument nodes of `node` whose values are tensors."""
    seen = []
    for a in pytree.tree_leaves((node.args, node.kwargs)):
        if isinstance(a, torch.fx.Node) and isinstance(node_value(a), torch.Tensor):
            if a not in seen:
                seen.append(a)
    return seen


# %% src_literate/post1_qwen3_fusion_reading.pmd::node_kind
def node_kind(node) -> str:
    """'gemm', 'memory' (moves data: elementwise, reduction, copy), 'view' or 'skip'."""
    if node.op != "call_function" or not isinstance(node_value(node), (torch.Tensor, tuple, list)):
        return "skip"  # placeholders, asserts, symbolic sizes
    if node.target is operator.getitem:
        return "view"  # one output of a multi-output op
    kind = op_kind(getattr(node.target, "__name__", str(node.target)))
    if kind == "maybe_copy":
        return "memory" if _copies(node) else "view"
    return {"gemm": "gemm", "view": "view"}.get(kind, "memory")


def _copies(node) -> bool:
    """Whether a may-alias op (to, reshape, contiguous, dropout...) really moves data here."""
    out, args = node_value(node), tensor_inputs(node)
    inp = node_value(args[0]) if args else None
    if not isinstance(out, torch.Tensor) or not isinstance(inp, torch.Tensor):
        return True
    base = node.target.__name__.split(".")[0]
    if base == "dropout":  # dropout(x, p, train)
        return node.args[1] != 0 and bool(node.args[2])
    if base in ("to", "type_as"):
        return out.dtype != inp.dtype or out.device != inp.device
    if base == "contiguous":
        return not inp.is_contiguous()
    try:  # reshape / flatten: a view exactly when the strides allow one
        torch.empty_strided(inp.shape, inp.stride(), device="meta").view(out.shape)
        return False
    except RuntimeError:
        return True


# %% src_literate/post1_qwen3_fusion_reading.pmd::statements
@dataclass(frozen=True)
class Statement:
    """One source line inside one module call: where an op comes from at one level."""

    module: str  # module path, "" for the root
    file: str
    line: int
    code: str


_FRAME = re.compile(r'\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')


def _frames(stack_trace: str) -> list:
    """[{file, line, code}] from a stack trace; code is "" when the source was not found."""
    frames = []
    for text in stack_trace.split("\n"):
        m = _FRAME.match(text)
        if m:
            frames.append({"file": m["file"], "line": int(m["line"]), "code": ""})
        elif frames and not frames[-1]["code"]:
            frames[-1]["code"] = text.strip()
    return frames


def statements(node) -> tuple:
    """The node's call path: one Statement per module of its nn_module_stack, outermost first.

    Non-strict export records one stack frame per module forward, so modules and frames line
    up; when they do not, only the innermost module and frame are kept.
    """
    modules = [path for path, _ in node.meta.get("nn_module_stack", {}).values()] or [""]
    frames = _frames(node.meta.get("stack_trace") or "")
    if len(frames) != len(modules):
        frames = frames[-1:] or [{"file": "?", "line": 0, "code": ""}]
        modules = modules[-1:]
    pairs = zip(modules, frames, strict=True)
    return tuple(Statement(m, f["file"], f["line"], f["code"]) for m, f in pairs)


# %% src_literate/post1_qwen3_fusion_reading.pmd::op_graph
class OpGraph:
    """An exported graph with what grouping needs: node kinds, call paths, reachability."""

    def __init__(self, gm: torch.fx.GraphModule, model: torch.nn.Module):
        self.nodes = list(gm.graph.nodes)
        self.index = {n: i for i, n in enumerate(self.nodes)}
        self.kind = {n: node_kind(n) for n in self.nodes}
        self.stmts = {n: statements(n) for n in self.nodes if self.kind[n] in ("memory", "gemm")}
        self.leaf = {p: next(m.children(), None) is None for p, m in model.named_modules()}
        self.real = 0  # bitset of the nodes that compute or move data
        self.anc = {}  # node -> bitset of every node it depends on
        for n in self.nodes:
            bits = 0
            for a in n.all_input_nodes:
                bits |= self.anc[a] | (1 << self.index[a])
            self.anc[n] = bits
            if n in self.stmts:
                self.real |= 1 << self.index[n]
        self.desc = {n: 0 for n in self.nodes}  # node -> bitset of every node that depends on it
        for n in reversed(self.nodes):
            for u in n.users:
                self.desc[n] |= self.desc[u] | (1 << self.index[u])

    def root(self, node):
        """Follow views back to the node that produced the data."""
        while self.kind.get(node) == "view" and tensor_inputs(node):
            node = tensor_inputs(node)[0]
        return node

    def consumers(self, node) -> list:
        """Nodes that read `node`'s data, through views; the graph output counts, asserts not."""
        out = []
        for u in node.users:
            if self.kind[u] == "view":
                out += self.consumers(u)
            elif self.kind[u] != "skip" or u.op == "output":
                out.append(u)
        return out


# %% src_literate/post1_qwen3_fusion_reading.pmd::may_fuse
def _may_fuse(g: OpGraph, a, b) -> bool:
    """Whether producer a and consumer b, both memory-bound, belong in one fused kernel.

    Yes inside one leaf module call (an RMSNorm), inside one source line, across lines of one
    module for same-size elementwise steps, and from a leaf child into the line that called it
    (the SiLU of `act_fn(gate_proj(x)) * up_proj(x)`).
    """
    sa, sb = g.stmts[a], g.stmts[b]
    leaf_a, leaf_b = g.leaf.get(sa[-1].module, False), g.leaf.get(sb[-1].module, False)
    if sa[-1].module == sb[-1].module:
        va, vb = node_value(a), node_value(b)
        same_size = all(isinstance(v, torch.Tensor) for v in (va, vb)) and va.numel() == vb.numel()
        return leaf_a or sa[-1] == sb[-1] or same_size
    call_a = sa[-2] if len(sa) > 1 else None
    call_b = sb[-2] if len(sb) > 1 else None
    if leaf_a and leaf_b and call_a is not None and call_a == call_b:
        return True
    return (leaf_a and call_a == sb[-1]) or (leaf_b and call_b == sa[-1])


def _convex(g: OpGraph, members) -> bool:
    """No path leaves the group through a real op and comes back: one kernel could run it."""
    bits = anc = desc = 0
    for m in members:
        bits |= 1 << g.index[m]
        anc |= g.anc[m]
        desc |= g.desc[m]
    return (anc & desc & g.real & ~bits) == 0


# %% src_literate/post1_qwen3_fusion_reading.pmd::memory_groups
def memory_groups(g: OpGraph) -> list:
    """Vertical fusion in graph order: each memory-bound op joins its producers' groups."""
    group_of, groups = {}, {}
    for b in g.nodes:
        if g.kind[b] != "memory":
            continue
        joinable = []
        for p in (g.root(a) for a in tensor_inputs(b)):
            gid = group_of.get(p)
            if gid is not None and gid not in joinable and _may_fuse(g, p, b):
                joinable.append(gid)
        merged = set().union(*(groups[i] for i in joinable), {b})
        if joinable and not _convex(g, merged):  # keep the first group that still fits
            joinable = [i for i in joinable if _convex(g, groups[i] | {b})][:1]
            merged = set().union(*(groups[i] for i in joinable), {b})
        gid = joinable[0] if joinable else len(groups)
        for i in joinable[1:]:
            del groups[i]
        groups[gid] = merged
        for m in merged:
            group_of[m] = gid
    return [sorted(s, key=g.index.get) for s in groups.values()]


# %% src_literate/post1_qwen3_fusion_reading.pmd::merge_siblings
def anchor_line(g: OpGraph, node) -> Statement:
    """The line a node comes from, seen from outside leaf modules (a norm's call site)."""
    s = g.stmts[node]
    return s[-2] if len(s) > 1 and g.leaf.get(s[-1].module, False) else s[-1]


def _inputs(g: OpGraph, members) -> set:
    """Producers outside the group whose data the group reads."""
    return {g.root(a) for m in members for a in tensor_inputs(m)} - set(members)


def merge_siblings(g: OpGraph, groups: list) -> list:
    """Horizontal fusion: groups of one source line that read a common tensor become one
    (RoPE on q and RoPE on k both read cos and sin)."""
    out = []
    for grp in groups:
        lines = {anchor_line(g, m) for m in grp}
        for prev in out:
            same_line = len(lines) == 1 and lines == {anchor_line(g, m) for m in prev}
            shared = _inputs(g, grp) & _inputs(g, prev)
            if same_line and shared and _convex(g, set(prev) | set(grp)):
                prev.extend(grp)
                prev.sort(key=g.index.get)
                break
        else:
            out.append(list(grp))
    return out


# %% src_literate/post1_qwen3_fusion_reading.pmd::shared_input_matmuls
def shared_input_matmuls(g: OpGraph) -> list:
    """Matmuls (linear, mm, matmul, addmm) that read the same activation: q/k/v, gate/up."""
    by_input = collections.defaultdict(list)
    for n in g.nodes:
        base = getattr(n.target, "__name__", "").split(".")[0]
        if g.kind[n] == "gemm" and base in ("linear", "mm", "matmul", "addmm"):
            args = tensor_inputs(n)
            by_input[g.root(args[1] if base == "addmm" else args[0])].append(n)
    return [ms for ms in by_input.values() if len(ms) > 1]


def find_groups(g: OpGraph, min_ops: int = 2) -> list:
    """[(kind, member nodes)]: memory-bound chains of >= min_ops ops, then shared-input GEMMs."""
    chains = merge_siblings(g, memory_groups(g))
    out = [("memory-bound chain", m) for m in chains if len(m) >= min_ops]
    return out + [("shared-input matmuls", m) for m in shared_input_matmuls(g)]


# %% src_literate/post1_qwen3_fusion_reading.pmd::traffic
def _out_bytes(node) -> int:
    return sum(tensor_bytes(t) for t in pytree.tree_leaves(node_value(node)))


def traffic(g: OpGraph, members) -> tuple:
    """(bytes unfused, bytes fused) of a group, from the fake tensors in node.meta["val"].

    Unfused, every op reads its inputs and writes its output; fused, one kernel reads each
    outside input once and writes only what is used outside the group.
    """
    inside = set(members)
    unfused = sum(
        _out_bytes(m) + sum(tensor_bytes(node_value(a)) for a in tensor_inputs(m)) for m in members
    )
    reads = {}
    for m in members:
        for a in tensor_inputs(m):
            r = g.root(a)
            if r not in inside:
                reads[r] = max(reads.get(r, 0), tensor_bytes(node_value(a)))
    leaving = [m for m in members if any(c not in inside for c in g.consumers(m))]
    return unfused, sum(reads.values()) + sum(_out_bytes(m) for m in leaving)
