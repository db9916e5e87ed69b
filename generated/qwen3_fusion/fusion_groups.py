# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""From an exported graph to fusion groups: what each op is, where it comes from, what it moves.

`OpGraph` classifies the nodes of a torch.export graph (gemm / memory / view / skip), reads each
node's module path and call path from node.meta and records reachability; `find_groups` groups
memory-bound ops the way a fusing compiler could, finds GEMMs that read one input and GEMMs whose
output only an activation or a loss reads (epilogues); `traffic` counts the bytes a group moves,
from the fake tensors in node.meta["val"]. Sizes that depend on data are sympy expressions.

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "EPILOGUE_OPS",
    "MATMULS",
    "OpGraph",
    "Statement",
    "anchor_line",
    "find_groups",
    "gemm_epilogues",
    "is_pointwise",
    "is_symbolic",
    "may_fuse",
    "memory_groups",
    "merge_siblings",
    "node_kind",
    "node_value",
    "numel",
    "op_name",
    "shared_input_matmuls",
    "statements",
    "tensor_bytes",
    "tensor_inputs",
    "traffic",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::fg_head
import collections
import operator
import re
from dataclasses import dataclass

import sympy
import torch
from torch.utils import _pytree as pytree

from qwen3_fusion.reading import op_kind


# %% src_literate/post1_qwen3_fusion_reading.pmd::node_values
def _sym(v):
    """An int, or a sympy expression for a size that depends on data (MoE routing)."""
    if isinstance(v, torch.SymInt):
        expr = v.node.expr
        return int(expr) if expr.is_number else expr
    return int(v)


def tensor_bytes(t):
    """Bytes a kernel touches to read or write `t`: broadcast (stride-0) dims count once.

    An int, or a sympy expression when the shape depends on data.
    """
    if not isinstance(t, torch.Tensor):
        return 0
    n = 1
    for size, stride in zip(t.shape, t.stride(), strict=True):
        n = n * (_sym(size) if _sym(stride) != 0 else 1)
    return n * t.element_size()


def numel(t):
    """Element count of a tensor value (int or sympy expression), 0 for anything else."""
    if not isinstance(t, torch.Tensor):
        return 0
    n = 1
    for size in t.shape:
        n = n * _sym(size)
    return n


def is_symbolic(n) -> bool:
    """Whether a byte count is a sympy expression rather than a number."""
    return isinstance(n, sympy.Basic) and not n.is_number


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
# GEMMs op_kind does not list: MoE grouped matmuls, attention and convolution backward
_GEMM_LIKE = ("grouped_mm", "scaled_dot_product", "flash_attention", "convolution_backward")


def node_kind(node) -> str:
    """'gemm', 'memory' (moves data: elementwise, reduction, copy), 'view' or 'skip'."""
    if node.op != "call_function" or not isinstance(node_value(node), (torch.Tensor, tuple, list)):
        return "skip"  # placeholders, asserts, symbolic sizes
    if node.target is operator.getitem:
        return "view"  # one output of a multi-output op
    name = getattr(node.target, "__name__", str(node.target))
    if any(s in name for s in _GEMM_LIKE):
        return "gemm"
    kind = op_kind(name)
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
    except Exception:  # noqa: BLE001 - no view (RuntimeError), or sizes that depend on data
        return True


def is_pointwise(node) -> bool:
    """An elementwise op (aten's pointwise tag): out[i] depends on in[i] only."""
    return torch.Tag.pointwise in getattr(node.target, "tags", ())


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
    """An exported graph with what grouping needs: node kinds, modules, reachability."""

    def __init__(self, gm: torch.fx.GraphModule, model: torch.nn.Module, live_inputs=None):
        """live_inputs: names of the placeholders that hold weights or data (default: the
        floating-point placeholders; weights are get_attr nodes in an exported graph)."""
        self.nodes = list(gm.graph.nodes)
        self.index = {n: i for i, n in enumerate(self.nodes)}
        self.kind = {n: node_kind(n) for n in self.nodes}
        self.stmts = {n: statements(n) for n in self.nodes if self.kind[n] in ("memory", "gemm")}
        self.leaf = {p: next(m.children(), None) is None for p, m in model.named_modules()}
        params = {name for name, _ in model.named_parameters(remove_duplicate=False)}
        params |= {name for name, _ in gm.named_parameters(remove_duplicate=False)}
        self.real = 0  # bitset of the nodes that compute or move data
        self.anc = {}  # node -> bitset of every node it depends on
        self.live = {}  # node -> whether it depends on a weight or a floating-point input
        for n in self.nodes:
            bits = 0
            for a in n.all_input_nodes:
                bits |= self.anc[a] | (1 << self.index[a])
            self.anc[n] = bits
            if n in self.stmts:
                self.real |= 1 << self.index[n]
            val = node_value(n)
            if n.op == "placeholder" and live_inputs is not None:
                source = n.name in live_inputs
            else:
                source = (n.op == "get_attr" and n.target in params) or (
                    n.op == "placeholder"
                    and isinstance(val, torch.Tensor)
                    and val.is_floating_point()
                )
            self.live[n] = source or any(self.live[a] for a in n.all_input_nodes)
        self.desc = {n: 0 for n in self.nodes}  # node -> bitset of every node that depends on it
        for n in reversed(self.nodes):
            for u in n.users:
                self.desc[n] |= self.desc[u] | (1 << self.index[u])
        self.module = {n: _module_path(n) for n in self.stmts}

    def in_leaf(self, node) -> bool:
        """Whether the op runs inside a leaf module's forward (a norm, an activation)."""
        stack = list(node.meta.get("nn_module_stack", {}).values())
        return len(stack) > 1 and self.leaf.get(stack[-1][0], False)

    def owner(self, node) -> str:
        """The module whose forward runs the op; a leaf module's ops count as its caller's."""
        stack = list(node.meta.get("nn_module_stack", {}).values())
        if not stack:
            return ""
        return stack[-2][0] if self.in_leaf(node) else stack[-1][0]

    def root(self, node):
        """Follow views back to the node that produced the data; through getitem too, whose
        source (chunk, split, topk) holds a tuple, not a tensor."""
        while self.kind.get(node) == "view":
            src = tensor_inputs(node) or [a for a in node.args[:1] if isinstance(a, torch.fx.Node)]
            if not src:
                break
            node = src[0]
        return node

    def producers(self, node) -> list:
        """The data-producing nodes `node` reads, through views."""
        return list(dict.fromkeys(self.root(a) for a in tensor_inputs(node)))

    def consumers(self, node) -> list:
        """Nodes that read `node`'s data, through views; the graph output counts, asserts not."""
        out = []
        for u in node.users:
            if self.kind[u] == "view":
                out += self.consumers(u)
            elif self.kind[u] != "skip" or u.op == "output":
                out.append(u)
        return out


def _module_path(node) -> str:
    """The innermost module the op was traced in ("" for the root)."""
    stack = list(node.meta.get("nn_module_stack", {}).values())
    return stack[-1][0] if stack else ""


# %% src_literate/post1_qwen3_fusion_reading.pmd::may_fuse
def _convex(g: OpGraph, members) -> bool:
    """No path leaves the group through a real op and comes back: one kernel could run it."""
    bits = anc = desc = 0
    for m in members:
        bits |= 1 << g.index[m]
        anc |= g.anc[m]
        desc |= g.desc[m]
    return (anc & desc & g.real & ~bits) == 0


def _same_size(a, b) -> bool:
    """Whether `b` runs over as many elements as `a` produces (one loop could compute both):
    b's output, or its largest input when b reduces (a LayerNorm that starts with a mean)."""
    na = numel(node_value(a))
    sizes = [numel(node_value(b))] + [numel(node_value(x)) for x in tensor_inputs(b)]
    return bool(na) and any(sympy.simplify(na - n) == 0 for n in sizes if n)


# %% src_literate/post1_qwen3_fusion_reading.pmd::group_rule
def may_fuse(g: "OpGraph", a, b) -> bool:
    """Whether memory-bound op `a` and its consumer `b` may share one kernel."""
    if g.live[a] != g.live[b]:  # mask / position work never joins work on weights
        return False
    if g.owner(a) == g.owner(b):  # one module's forward, whatever the lines; a norm's ops count
        return True  # as its caller's
    # an elementwise op feeding a norm called elsewhere: residual add + next layer's norm
    return g.in_leaf(b) and not g.in_leaf(a) and is_pointwise(a) and _same_size(a, b)


def memory_groups(g: "OpGraph") -> list:
    """Vertical fusion in graph order: each op joins its producers' groups while no path
    leaves the group through another op and comes back (one kernel could run it)."""
    group_of, groups, fresh = {}, {}, 0
    for b in (n for n in g.nodes if g.kind[n] == "memory"):
        merged = {b}
        for p in g.producers(b):
            gid = group_of.get(p)
            if gid in groups and may_fuse(g, p, b) and _convex(g, merged | groups[gid]):
                merged |= groups.pop(gid)
        groups[fresh] = merged  # a new id every time: a merged group's id is never reused
        group_of.update(dict.fromkeys(merged, fresh))
        fresh += 1
    return [sorted(s, key=g.index.get) for s in groups.values()]


# %% src_literate/post1_qwen3_fusion_reading.pmd::merge_siblings
def anchor_line(g: OpGraph, node) -> Statement:
    """The line a node comes from, seen from outside leaf modules (a norm's call site)."""
    s = g.stmts[node]
    return s[-2] if len(s) > 1 and g.leaf.get(s[-1].module, False) else s[-1]


def _inputs(g: OpGraph, members) -> set:
    """Producers outside the group whose data the group reads."""
    return {p for m in members for p in g.producers(m)} - set(members)


def merge_siblings(g: OpGraph, groups: list) -> list:
    """Horizontal fusion: groups run by one module's forward that read a tensor another op
    computed become one (RoPE on q and RoPE on k both read cos and sin)."""
    out = []
    for grp in groups:
        owners = {g.owner(m) for m in grp}
        for prev in out:
            # a tensor computed in the graph (not an input or a weight) that both read
            shared = {p for p in _inputs(g, grp) & _inputs(g, prev) if p.op == "call_function"}
            same_owner = len(owners) == 1 and owners == {g.owner(m) for m in prev}
            same_work = g.live[grp[0]] == g.live[prev[0]]  # mask work stays apart
            if same_owner and same_work and shared and _convex(g, set(prev) | set(grp)):
                prev.extend(grp)
                prev.sort(key=g.index.get)
                break
        else:
            out.append(list(grp))
    return out


# %% src_literate/post1_qwen3_fusion_reading.pmd::shared_input_matmuls
MATMULS = frozenset("linear mm matmul addmm bmm baddbmm".split())
# an activation or a loss right after a GEMM: what a GEMM epilogue (or a fused loss) computes
EPILOGUE_OPS = frozenset(
    "gelu silu relu tanh sigmoid softplus cross_entropy_loss log_softmax _log_softmax".split()
)


def op_name(node) -> str:
    """The aten op's base name: "mul" for aten.mul.Tensor."""
    return getattr(node.target, "__name__", str(node.target)).split(".")[0]


def shared_input_matmuls(g: OpGraph) -> list:
    """Matmuls (linear, mm, matmul, addmm) that read the same activation: q/k/v, gate/up."""
    by_input = collections.defaultdict(list)
    for n in g.nodes:
        base = op_name(n)
        forward = not n.meta.get("backward")  # a Linear's two backward GEMMs share dY
        if g.kind[n] == "gemm" and base in ("linear", "mm", "matmul", "addmm") and forward:
            args = tensor_inputs(n)
            by_input[g.root(args[1] if base == "addmm" else args[0])].append(n)
    return [ms for ms in by_input.values() if len(ms) > 1]


def gemm_epilogues(g: OpGraph, groups: list) -> list:
    """GEMMs plus the memory-bound group after them, when the group holds an activation or a
    loss and nothing else reads the GEMMs' outputs (Linear + GELU, gate/up + SiLU, lm_head +
    cross-entropy): one kernel could apply the group before the GEMM writes its tile."""
    out = []
    for grp in groups:
        if not any(op_name(m) in EPILOGUE_OPS for m in grp):
            continue
        inside = set(grp)
        gemms = [
            p
            for m in grp
            for p in g.producers(m)
            if g.kind[p] == "gemm"
            and (op_name(p) in MATMULS or "grouped_mm" in op_name(p))  # MoE experts too
            and all(c in inside or c.op == "output" for c in g.consumers(p))
        ]
        if gemms:
            out.append(sorted(set(gemms) | inside, key=g.index.get))
    return out


def find_groups(g: OpGraph, min_ops: int = 2) -> list:
    """[(kind, member nodes)]: memory-bound chains of >= min_ops ops, shared-input GEMMs, and
    GEMM epilogues."""
    chains = merge_siblings(g, memory_groups(g))
    out = [("memory-bound chain", m) for m in chains if len(m) >= min_ops]
    out += [("shared-input matmuls", m) for m in shared_input_matmuls(g)]
    return out + [("gemm epilogue", m) for m in gemm_epilogues(g, chains)]


# %% src_literate/post1_qwen3_fusion_reading.pmd::traffic
# ops that run as two kernels with a full-size intermediate: cross_entropy = log_softmax + nll
_TWO_KERNEL_OPS = frozenset({"cross_entropy_loss"})


# ops that read from their first argument only the elements an index picks, never the whole
# tensor: as many as the target has (nll_loss) or as the output has (gather, embedding rows)
_INDEXED_READS = {"nll_loss_forward": "target", "nll_loss2d_forward": "target", "gather": "out",
                  "embedding": "out", "index_select": "out", "take": "out"}  # fmt: skip
# backwards handed their forward's input (argument 1) for its shape only: they never read it
_SHAPE_ONLY_ARG = {"nll_loss_backward": 1, "nll_loss2d_backward": 1}


def _larger(x, y):
    """max() that also takes sympy expressions."""
    return sympy.Max(x, y) if is_symbolic(x) or is_symbolic(y) else max(x, y)


def _smaller(x, y):
    return sympy.Min(x, y) if is_symbolic(x) or is_symbolic(y) else min(x, y)


def _out_bytes(node):
    return sum(tensor_bytes(t) for t in pytree.tree_leaves(node_value(node)))


def _read_bytes(node, a):
    """Bytes `node` reads from its argument `a`: the whole tensor, except the indexed reads and
    shape-only arguments above (else a cross-entropy's nll ops would count the full logits)."""
    full, name, args = tensor_bytes(node_value(a)), op_name(node), node.args
    k = _SHAPE_ONLY_ARG.get(name)
    if k is not None and len(args) > k and args[k] is a and a not in args[:k] + args[k + 1 :]:
        return 0
    if name in _INDEXED_READS and args and args[0] is a:
        target = args[1] if len(args) > 1 and isinstance(args[1], torch.fx.Node) else None
        if _INDEXED_READS[name] == "target" and target is not None:
            count = numel(node_value(target))
        else:
            count = sum(numel(t) for t in pytree.tree_leaves(node_value(node)))
        return _smaller(full, count * node_value(a).element_size())
    return full


def _op_bytes(node):
    """What one op reads and writes when it runs alone."""
    ins = [_read_bytes(node, a) for a in tensor_inputs(node)]
    inner = 2 * ins[0] if op_name(node) in _TWO_KERNEL_OPS and ins else 0
    return _out_bytes(node) + sum(ins) + inner


def traffic(g: OpGraph, members, unused_outputs=()) -> tuple:
    """(bytes unfused, bytes fused) of a group, from the fake tensors in node.meta["val"].

    Unfused, every op reads its inputs and writes its output; fused, one kernel reads each
    outside input once and writes only what is used outside the group. For the nodes in
    `unused_outputs` the graph output does not count as a reader (a fused loss need not
    return the logits).
    """
    inside, drop = set(members), set(unused_outputs)
    unfused = sum(_op_bytes(m) for m in members)
    reads = {}
    for m in members:
        for a in tensor_inputs(m):
            r = g.root(a)
            if r not in inside:
                reads[r] = _larger(reads.get(r, 0), _read_bytes(m, a))
    leaving = [
        m
        for m in members
        if any(c not in inside and (m not in drop or c.op != "output") for c in g.consumers(m))
    ]
    return unfused, sum(reads.values()) + sum(_out_bytes(m) for m in leaving)
