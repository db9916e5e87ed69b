# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""What torch.compile already fuses: Inductor's kernels for the scanned graph, mapped to the
scanner's candidates (fused / partly / not).

Inductor records, for every IR node it lowers, the FX nodes it came from (`origins`); each of
those carries `node.meta["from_node"]`, the chain of nodes it was derived from, back to the
graph Inductor was given: the scanner's own graph, so the names match. A scheduler hook
(`torch._inductor.config._post_fusion_custom_pass`, private, in torch since 2.7) sees the
kernels after fusion and stops the compile there: nothing is built, no C++ or Triton code.

The graph is compiled on fake tensors, whatever device the scan used (meta included), for
Inductor's CPU backend by default or for its CUDA (Triton) backend with backend="cuda" (needs a
CUDA device; nothing runs on it). The two backends' fusion decisions for memory-bound ops
agree in the cases tested (RMSNorm, RoPE, SwiGLU, residual add + norm); GEMM epilogues differ:
Inductor fuses them only into its own GEMM templates (GPU, max-autotune), so on the CPU
backend a "gemm epilogue" reads "partly" at best. A training step's graph (forward and backward in
one) is compiled as one graph; torch.compile itself would partition it in two, so
inductor_column judges each pass's ops apart (a kernel that mixes passes counts for both).

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§四); every block below is marked with its chunk.
"""

__all__ = [
    "BACKENDS",
    "check_backend",
    "compiled_kernels",
    "fusion_status",
    "inductor_column",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::inductor_head
import logging

import torch
from torch.utils import _pytree as pytree


class _Stop(Exception):
    """Raised by the scheduler hook once the kernels are known: nothing more to compile."""


# %% src_literate/post1_qwen3_fusion_reading.pmd::inductor_kernels
def _source_name(origin) -> str:
    """The name of the node of the compiled graph an Inductor origin was derived from."""
    chain = origin.meta.get("from_node") or []
    if not chain:
        return origin.name
    src = chain[0]
    while getattr(src, "from_node", None):
        src = src.from_node[0]
    return src.name


def _fake_on(value, mode, device: str):
    """A fake tensor on `device` shaped like `value` (meta tensors included); others as is."""
    if not isinstance(value, torch.Tensor):
        return value
    with mode:
        return torch.empty_strided(value.shape, value.stride(), dtype=value.dtype, device=device)


def _target_graph(gm: torch.fx.GraphModule, mode, flat_inputs: list, device: str):
    """A copy of gm with flat inputs and outputs, fake attributes and device arguments on
    `device` (node names kept); the scanned graph and its weights are not touched. Inputs that
    are not tensors (use_cache=False) become constants: torch 2.11's Inductor refuses a bool."""
    graph = torch.fx.Graph()
    env = {}
    attrs = {}
    values = iter(flat_inputs)  # one per placeholder, in order
    for n in gm.graph.nodes:
        if n.op == "call_module":  # export's input guards: no data
            continue
        if n.op == "placeholder":
            value = next(values, None)
            if not isinstance(value, torch.Tensor):
                env[n] = value
                continue
        if n.op == "output":
            leaves = [env[a] for a in pytree.tree_leaves(n.args[0]) if isinstance(a, torch.fx.Node)]
            graph.output(tuple(a for a in leaves if isinstance(a, torch.fx.Node)))
            continue
        if n.op == "get_attr":
            attrs[n.target] = _attr_on(gm, n.target, mode, device)
        new = graph.node_copy(n, lambda a: env[a])
        new.args, new.kwargs = _on_device((new.args, new.kwargs), device)
        new.name = n.name
        # provenance starts here: a training step's nodes already point at the export graph's
        new.meta.pop("from_node", None)
        env[n] = new
    return torch.fx.GraphModule(attrs, graph)


def _attr_on(gm: torch.fx.GraphModule, target: str, mode, device: str):
    """gm's attribute `target` on `device`: a tensor as a fake one; the body of a higher-order
    op (a forward scan's `wrap_with_set_grad_enabled` around RoPE's inv_freq) as a copy whose
    device arguments and tensors are moved too, else Inductor sees two devices."""
    value = gm
    for part in target.split("."):
        value = getattr(value, part)
    if not isinstance(value, torch.fx.GraphModule):
        return _fake_on(value, mode, device)
    graph, env, attrs = torch.fx.Graph(), {}, {}
    for n in value.graph.nodes:
        if n.op == "get_attr":
            attrs[n.target] = _attr_on(value, n.target, mode, device)
        new = graph.node_copy(n, lambda a: env[a])
        new.args, new.kwargs = _on_device((new.args, new.kwargs), device)
        env[n] = new
    return torch.fx.GraphModule(attrs, graph)


def _on_device(tree, device: str):
    """`tree` (a node's args and kwargs) with every torch.device in it replaced by `device`."""
    return pytree.tree_map(
        lambda x: torch.device(device) if isinstance(x, torch.device) else x, tree
    )


BACKENDS = ("cpu", "cuda")


def check_backend(backend: str) -> None:
    """Raise ValueError, in one line, for a backend Inductor cannot compile for here."""
    if backend not in BACKENDS:
        raise ValueError(f"Inductor backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if backend == "cuda" and not torch.cuda.is_available():
        raise ValueError("Inductor backend 'cuda' needs a CUDA device; use 'cpu' on this machine")


def compiled_kernels(gm: torch.fx.GraphModule, flat_inputs: list, backend: str = "cpu") -> list:
    """[(extern?, names of gm's nodes it computes)] for each kernel Inductor would generate
    for `gm` (extern: a library call such as a GEMM or SDPA, not a generated kernel), with its
    "cpu" or "cuda" backend."""
    from torch._inductor import config
    from torch._inductor.compile_fx import compile_fx
    from torch._inductor.scheduler import NopKernelSchedulerNode
    from torch._subclasses.fake_tensor import FakeTensorMode

    if not hasattr(config, "_post_fusion_custom_pass"):
        raise RuntimeError(f"torch {torch.__version__} has no Inductor scheduler hook")
    kernels = []

    def hook(nodes):
        for sn in nodes:
            if isinstance(sn, NopKernelSchedulerNode):
                continue  # views and concatenations written in place: no kernel
            origins = {o for part in sn.get_nodes() for o in getattr(part.node, "origins", ())}
            names = frozenset(_source_name(o) for o in origins if o.op == "call_function")
            kernels.append((sn.is_extern() or sn.is_template(), names))
        raise _Stop

    check_backend(backend)
    # an indexed device: export's tensor-metadata asserts compare "cuda" and "cuda:0" as unequal
    device = "cpu" if backend == "cpu" else f"cuda:{torch.cuda.current_device()}"
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    target = _target_graph(gm, mode, flat_inputs, device)
    inputs = [_fake_on(t, mode, device) for t in flat_inputs if isinstance(t, torch.Tensor)]
    patch = dict(_post_fusion_custom_pass=hook, fx_graph_cache=False, fx_graph_remote_cache=False)
    log = logging.getLogger("torch._inductor")
    level = log.level
    log.setLevel(logging.CRITICAL)  # Inductor logs the stop as a failed compile
    try:
        with config.patch(**patch):
            compile_fx(target, inputs)
    except Exception as e:  # noqa: BLE001 - the stop arrives wrapped by torch
        cause = e
        while cause is not None and not isinstance(cause, _Stop):
            cause = cause.__cause__ or cause.__context__
        if cause is None:
            raise
    finally:
        log.setLevel(level)
    return kernels


def _kernel_of(kernels: list, name: str, gemm: bool, nodes: set):
    """Index of the kernel that computes node `name`, or None. Origins are generous (a kernel
    lists the nodes inlined into its inputs too): a GEMM is the extern kernel listing the
    fewest nodes; another op the generated kernel holding most of the candidate's nodes."""
    holders = [i for i, (_, names) in enumerate(kernels) if name in names]
    if gemm:
        own = [i for i in holders if kernels[i][0]]
        return min(own, key=lambda i: (len(kernels[i][1]), i)) if own else None
    own = [i for i in holders if not kernels[i][0]] or holders
    return max(own, key=lambda i: (len(kernels[i][1] & nodes), -i)) if own else None


def fusion_status(kernels: list, nodes, gemms) -> tuple:
    """("fused" | "partly" | "not" | "", kernels used) for one occurrence of a candidate:
    `nodes` are its node names, `gemms` the names of the graph's GEMMs; "" when Inductor's
    kernels hold none of its nodes."""
    found = [_kernel_of(kernels, n, n in gemms, set(nodes)) for n in nodes]
    found = [k for k in found if k is not None]  # ops Inductor removed (no-op copies) drop out
    used = len(set(found))
    if not found:
        return "", 0
    return ("fused" if used == 1 else "not" if used == len(found) else "partly"), used


def inductor_column(cands: list, kernels: list, gemm_names, backward_nodes=frozenset()) -> None:
    """Set each candidate's `inductor`: fused when every occurrence is one kernel, not when
    every op of every occurrence runs alone, else partly.

    In a training step's graph each pass is judged apart (`backward_nodes`: the names of the
    backward's nodes): torch.compile compiles the forward and the backward as two graphs, so a
    chain spanning both is at best one kernel each way, and that counts as fused."""
    for c in cands:
        states = set()
        for i in c.instances:
            passes = ([n for n in i.nodes if (n in backward_nodes) == bwd] for bwd in (False, True))
            states |= {fusion_status(kernels, nodes, gemm_names)[0] for nodes in passes if nodes}
        c.inductor = states.pop() if len(states) == 1 else "partly" if states - {""} else ""
