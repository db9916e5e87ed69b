# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""Known fusion patterns, named from where a group's ops come from, not from a list of models.

A node is tagged by the class of the module whose forward runs it (`*RMSNorm`, `*LayerNorm`,
`*RotaryEmbedding`, activation modules such as `SiLUActivation` or `NewGELUActivation`), by the
functions its source line calls (`apply_rotary_pos_emb`, `rotate_half`: RoPE) or by its aten op
(`layer_norm`, `softmax`, `cross_entropy_loss`, `silu`). Neighbours then complete a pattern: an
activation that feeds a `mul` by another tensor, not a dropout mask, is a gated unit (SiLU:
SwiGLU, GELU: GeGLU), an `add` next to a norm is the residual add. `describe_ops` writes e.g.
"RMSNorm(q_norm, k_norm) + RoPE + reshape".

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "LABEL_WORDS",
    "compact",
    "describe_ops",
    "gemm_name",
    "tag",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::patterns_head
import re

from qwen3_fusion.fusion_groups import OpGraph, op_name, statements

_NORM_CLASS = re.compile(r"(RMS|Layer|Group|L2)_?Norm", re.IGNORECASE)
_NORM_KIND = {"rms": "RMSNorm", "layer": "LayerNorm", "group": "GroupNorm", "l2": "L2Norm"}
_NORM_OPS = {
    "layer_norm": "LayerNorm",
    "native_layer_norm": "LayerNorm",
    "native_layer_norm_backward": "LayerNorm",
    "rms_norm": "RMSNorm",
    "_fused_rms_norm": "RMSNorm",
    "_fused_rms_norm_backward": "RMSNorm",
    "group_norm": "GroupNorm",
    "native_group_norm": "GroupNorm",
    "native_group_norm_backward": "GroupNorm",
}
# "rope" as a word only (apply_rope, RoPEScaling, LlamaRope), never inside one (SolarOpenMLP)
_ROPE = re.compile(
    r"(?i:rotary)|rotate_half|(?<![A-Za-z])rope(?![a-z])|(?:Rope|RoPE|ROPE)(?![a-z])"
)
_SOFTMAX_OPS = frozenset("softmax _softmax _safe_softmax _softmax_backward_data".split())
_LOSS_OPS = frozenset(
    "cross_entropy_loss nll_loss nll_loss_forward nll_loss_backward nll_loss_nd "
    "log_softmax _log_softmax _log_softmax_backward_data".split()
)
_LOSS_CALL = re.compile(r"cross_entropy|loss_function|LMLoss", re.IGNORECASE)
# activation ops (and their backward) by name; activation modules by class name
_ACT_OP = re.compile(r"(silu|gelu|relu|sigmoid|tanh)_?(backward)?")
_ACT_CLASS = re.compile(r"silu|swish|gelu|relu", re.IGNORECASE)
_ACT_NAME = {"silu": "SiLU", "swish": "SiLU", "gelu": "GELU", "relu": "ReLU"}
_ACT_NAME.update(sigmoid="sigmoid", tanh="tanh", threshold="ReLU")
_GLU = {"SiLU": "SwiGLU", "GELU": "GeGLU", "ReLU": "ReGLU"}  # act(x W) * (x V)


# %% src_literate/post1_qwen3_fusion_reading.pmd::pattern_tags
def _calls(node) -> list:
    """Names the node's source line calls, e.g. ["apply_rotary_pos_emb"]."""
    return re.findall(r"([A-Za-z_]\w*)\s*\(", statements(node)[-1].code)


def tag(g: OpGraph, node):
    """(pattern, module attribute or "") a node belongs to by its own provenance, or None."""
    stack = list(node.meta.get("nn_module_stack", {}).values())
    path, cls = stack[-1] if stack else ("", "")
    cls, leaf, attr = str(cls).rsplit(".", 1)[-1], g.leaf.get(path, False), path.rsplit(".", 1)[-1]
    op, calls = op_name(node), _calls(node)
    norm = _NORM_CLASS.search(cls)
    if norm:
        return _NORM_KIND[norm[1].lower()], attr
    if op in _NORM_OPS:
        return _NORM_OPS[op], attr if leaf else ""
    if any(_ROPE.search(c) for c in (cls, *calls)):
        return "RoPE", ""
    if op in _SOFTMAX_OPS:
        return "softmax", ""
    if op in _LOSS_OPS or any(_LOSS_CALL.search(c) for c in calls):
        return "cross-entropy", ""
    act = _ACT_CLASS.search(cls) if leaf else None
    if act:
        return _ACT_NAME[act[0].lower()], ""
    act = _ACT_OP.fullmatch(op)
    if act or op == "threshold_backward":  # threshold_backward: relu's backward
        return _ACT_NAME[act[1] if act else "threshold"], ""
    return None


_RANDOM_OPS = frozenset("bernoulli bernoulli_ rand rand_like native_dropout".split())


def _random_mask(g: OpGraph, node, depth: int = 3) -> bool:
    """Whether `node` is a dropout mask: random numbers within `depth` elementwise ops
    (bernoulli_, then div_). The walk stops at GEMMs: dropout upstream of one is another op's."""
    todo = [(node, 0)]
    while todo:
        n, d = todo.pop()
        if op_name(n) in _RANDOM_OPS:
            return True
        if d < depth and g.kind.get(n) != "gemm":
            todo += [(p, d + 1) for p in g.producers(n)]
    return False


def _gates(g: OpGraph, mul, act) -> bool:
    """Whether `mul` multiplies by the activation `act` as a gated unit does: act(x W) * (x V).
    A forward activation feeds the mul; in the backward pass the mul may feed it (dy * up goes
    into silu_backward). The other factor is no dropout mask (x * bernoulli / p is not GLU)."""
    backward = op_name(act).endswith("_backward") or bool(act.meta.get("backward"))
    if mul not in g.consumers(act) + (g.producers(act) if backward else []):
        return False
    others = [p for p in g.producers(mul) if p is not act]
    return bool(others) and not any(_random_mask(g, p) for p in others)


def _complete(g: OpGraph, members, tags: dict) -> None:
    """Neighbours finish a pattern: mul next to an activation (gated unit), add next to a norm
    (residual add). Untagged ops only; `tags` is updated in place."""
    inside = set(members)
    for m in members:
        if tags[m] is not None or op_name(m) not in ("mul", "add", "add_"):
            continue
        near = [n for n in g.producers(m) + g.consumers(m) if n in inside and tags[n]]
        for n in near:
            name = tags[n][0]
            glu = _GLU.get(name, name if name in _GLU.values() else None)
            if op_name(m) == "mul" and glu and (name in _GLU.values() or _gates(g, m, n)):
                tags[m] = (glu, "")
                for k in members:  # the activation is part of the gated unit
                    if tags[k] and tags[k][0] == name:
                        tags[k] = (glu, "")
                break
            if op_name(m).startswith("add") and name.endswith("Norm"):
                tags[m] = ("residual add", "")
                break
    units = {g.owner(m): tags[m] for m in members if tags[m] and tags[m][0] in _GLU.values()}
    for m in members:  # a gated unit's backward: d_up = dy * act(gate) reads no tagged op
        if tags[m] is None and op_name(m) == "mul" and g.owner(m) in units:
            tags[m] = units[g.owner(m)]


LABEL_WORDS = 12  # a longer run of names is cut, saying how many more


def compact(names, sep: str) -> str:
    """Names joined by sep, a run repeated 3+ times written once with its count, and the text
    cut after LABEL_WORDS names: an unrolled scan loop (Mamba, RWKV) stays a readable label,
    e.g. compact(["exp", "mul", "add", "mul", "add", "mul", "add"], "·") == "exp·(mul·add)×3"."""
    names, out, i = list(names), [], 0
    while i < len(names):
        best = (1, 1)  # (repeats, unit length)
        for unit in range(1, 5):
            block, k = names[i : i + unit], 1
            while len(block) == unit and names[i + k * unit : i + (k + 1) * unit] == block:
                k += 1
            if k >= 3 and k * unit > best[0] * best[1]:
                best = (k, unit)
        k, unit = best
        if k >= 3:
            text = sep.join(names[i : i + unit])
            out.append(f"{text}×{k}" if unit == 1 else f"({text})×{k}")
        else:
            out.append(names[i])
        i += k * unit
    if len(out) > LABEL_WORDS:
        out = [*out[:LABEL_WORDS], f"… {len(out) - LABEL_WORDS} more"]
    return sep.join(out)


def describe_ops(g: OpGraph, members, home: str) -> tuple:
    """(known patterns, text, all ops named?) of a group's ops, e.g. (("RMSNorm", "RoPE"),
    "RMSNorm(q_norm, k_norm) + RoPE + reshape", False); the home module's own name is not
    repeated in a norm's parentheses."""
    tags = {m: tag(g, m) for m in members}
    _complete(g, members, tags)
    words, where = [], {}
    for m in members:
        if tags[m] is None:
            op = op_name(m)
            if words and words[-1].startswith("·"):
                words[-1] += "·" + op  # a run of plain ops
            else:
                words.append("·" + op)
            continue
        name, attr = tags[m]
        if name not in where:
            words.append(name)
            where[name] = []
        home_attr = home.rsplit(".", 1)[-1]
        if attr and attr != home_attr and attr not in where[name]:
            where[name].append(attr)
    text = [
        compact(w[1:].split("·"), "·")
        if w.startswith("·")
        else w + (f"({', '.join(where[w])})" if where[w] else "")
        for w in words
    ]
    named = tuple(w for w in words if not w.startswith("·"))
    return named, " + ".join(text), all(t is not None for t in tags.values())


def gemm_name(g: OpGraph, node) -> str:
    """A GEMM's name: its Linear's attribute, else the weight it reads, else its op."""
    path = g.module.get(node, "")
    if path and g.leaf.get(path, False):
        return path.rsplit(".", 1)[-1]
    for a in node.all_input_nodes:
        src = g.root(a)
        if src.op == "get_attr":  # a functional GEMM on a parameter (MoE experts, F.linear)
            return str(src.target).removesuffix(".weight").rsplit(".", 1)[-1]
    return op_name(node)
