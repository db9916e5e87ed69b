# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""Reading a model two ways: statically (structure, source, graphs) and dynamically (profiles).

Static: `param_counts`, `source_span` / `github_url`, `fx_trace`, `export_graph` / `op_counts`.
Dynamic: `profile_train_step`, `save_chrome_trace` / `read_chrome_trace`, `op_calls`,
`launch_stats`. Nothing here needs a GPU; on a CUDA machine the profiles include kernels.

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§二, §三); every block below is marked with its chunk.
"""

__all__ = [
    "ExportError",
    "GEMM_OPS",
    "GEMM_SUBSTRINGS",
    "LaunchStats",
    "MAYBE_COPY_OPS",
    "NO_DATA_OPS",
    "ParamCounts",
    "SourceSpan",
    "TraceSummary",
    "export_graph",
    "first_sentence",
    "fx_trace",
    "github_url",
    "launch_stats",
    "op_calls",
    "op_counts",
    "op_kind",
    "package_path",
    "param_counts",
    "profile_train_step",
    "read_chrome_trace",
    "save_chrome_trace",
    "source_span",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::reading_head
import collections
import inspect
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import torch
import transformers


# %% src_literate/post1_qwen3_fusion_reading.pmd::param_counts
@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts of a model: each tensor once, and once per name that refers to it."""

    unique: int  # what the model really stores
    per_name: int  # what a tool that walks every module's parameters adds up
    shared: tuple  # groups of names that refer to one tensor, e.g. tied embeddings


def param_counts(model: torch.nn.Module) -> ParamCounts:
    """Count parameters with and without the names that share a tensor."""
    names = collections.defaultdict(list)
    sizes = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names[id(p)].append(name)
        sizes[id(p)] = p.numel()
    unique = sum(sizes.values())
    per_name = sum(sizes[k] * len(v) for k, v in names.items())
    shared = tuple(tuple(v) for v in names.values() if len(v) > 1)
    return ParamCounts(unique=unique, per_name=per_name, shared=shared)


# %% src_literate/post1_qwen3_fusion_reading.pmd::source_span
@dataclass(frozen=True)
class SourceSpan:
    """Where an object is defined: a file of an installed package, first and last line."""

    name: str
    file: str  # e.g. "transformers/models/qwen3/modeling_qwen3.py"
    start: int
    end: int


def package_path(path: str) -> str:
    """A file's path from the sys.path entry it is imported from: the same on every machine."""
    p = Path(path).resolve()
    roots = [Path(e).resolve() for e in sys.path if e and Path(e).is_dir()]
    inside = [r for r in roots if p.is_relative_to(r)]
    if inside:
        return p.relative_to(max(inside, key=lambda r: len(r.parts))).as_posix()
    # a Jupyter cell's code lives in a temporary file named by a hash: "cell:6" is line 6 of the cell
    return "cell" if p.parent.name.startswith("ipykernel_") else p.name


def source_span(obj) -> SourceSpan:
    """Read the installed source of a class or function (decorators included) with inspect."""
    target = inspect.unwrap(obj)
    lines, start = inspect.getsourcelines(target)
    rel = package_path(inspect.getsourcefile(target))
    return SourceSpan(obj.__name__, rel, start, start + len(lines) - 1)


def github_url(span: SourceSpan) -> str:
    """The span on GitHub, at the tag of the installed transformers (its files only)."""
    if not span.file.startswith("transformers/"):
        raise ValueError(f"{span.file} is not a file of the transformers package")
    tag = f"v{transformers.__version__}"
    return (
        f"https://github.com/huggingface/transformers/blob/{tag}/src/{span.file}"
        f"#L{span.start}-L{span.end}"
    )


# %% src_literate/post1_qwen3_fusion_reading.pmd::fx_trace
def fx_trace(module: torch.nn.Module, unwrap_forward: bool = False):
    """torch.fx.symbolic_trace the module: (GraphModule, None), or (None, "Error: first line").

    unwrap_forward=True traces the function under a decorated forward (its __wrapped__), to see
    the next obstacle once the decorator is out of the way; the module itself is not changed.
    """
    target = module
    forward = type(module).forward
    if unwrap_forward and hasattr(forward, "__wrapped__"):
        cls = type(type(module).__name__, (type(module),), {"forward": forward.__wrapped__})
        target = object.__new__(cls)  # a view of the same module under the undecorated class
        target.__dict__ = module.__dict__
    try:
        return torch.fx.symbolic_trace(target), None
    except Exception as e:  # the error is the result here
        return None, first_sentence(e)


def first_sentence(e: BaseException) -> str:
    """ "ErrorType: first sentence of the message", for one-line reports."""
    text = str(e).strip().split("\n")[0]
    cut = text.find(". ")
    return f"{type(e).__name__}: {text[: cut + 1] if cut > 0 else text}"


# %% src_literate/post1_qwen3_fusion_reading.pmd::export_graph
class ExportError(ValueError):
    """torch.export could not capture the module with the given example inputs."""


def export_graph(model: torch.nn.Module, args=(), kwargs=None) -> torch.export.ExportedProgram:
    """torch.export.export the model; any failure becomes one ExportError naming the module."""
    if not isinstance(model, torch.nn.Module):
        raise ExportError(f"expected an nn.Module, got {type(model).__name__}")
    if not isinstance(args, tuple):
        raise ExportError(f"example inputs must be a tuple, got {type(args).__name__}")
    try:
        # non-strict: runs the real Python code on fake tensors, one stack frame per module
        return torch.export.export(model, args, kwargs=kwargs or {}, strict=False)
    except Exception as e:  # reported as one clear error
        name = type(model).__name__
        raise ExportError(f"torch.export rejected {name}: {first_sentence(e)}") from None


def op_counts(program: torch.export.ExportedProgram) -> collections.Counter:
    """How often each aten op appears in an exported graph, e.g. {'aten.mul.Tensor': 31}."""
    nodes = program.graph.nodes
    return collections.Counter(str(n.target) for n in nodes if n.op == "call_function")


# %% src_literate/post1_qwen3_fusion_reading.pmd::profile_train_step
def profile_train_step(model: torch.nn.Module, input_ids: torch.Tensor, warmup: int = 1):
    """Profile one training step (forward with labels, loss, backward) after `warmup` steps.

    Returns the finished torch.profiler.profile; CUDA kernels are recorded when the inputs are
    on a GPU. Gradients are cleared after each step and the train/eval mode is restored.
    """
    activities = [torch.profiler.ProfilerActivity.CPU]
    if input_ids.is_cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    was_training = model.training
    model.train()

    def step():
        model(input_ids=input_ids, labels=input_ids, use_cache=False).loss.backward()
        model.zero_grad(set_to_none=True)

    for _ in range(warmup):
        step()
    with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        step()
        if input_ids.is_cuda:
            torch.cuda.synchronize()
    model.train(was_training)
    return prof


def op_calls(prof, top: int = 10) -> list:
    """(aten op, calls) from the profile's key_averages, most called first; no timings."""
    rows = [(e.key, e.count) for e in prof.key_averages() if e.key.startswith("aten::")]
    return sorted(rows, key=lambda r: (-r[1], r[0]))[:top]


# %% src_literate/post1_qwen3_fusion_reading.pmd::chrome_trace
@dataclass(frozen=True)
class TraceSummary:
    """The shape of a Chrome trace-event file (the JSON Perfetto and chrome://tracing open)."""

    events: int
    phases: dict  # events per "ph": X complete (ts + dur), i instant, s/f flow, M metadata
    names: dict  # complete events per name


def save_chrome_trace(prof, path) -> Path:
    """Write the profile as Chrome trace-event JSON; open it at https://ui.perfetto.dev."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prof.export_chrome_trace(str(path))
    return path


def read_chrome_trace(path) -> TraceSummary:
    """Check that a file is trace-event JSON and summarize it; ValueError says what is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a JSON file ({e})") from None
    events = data.get("traceEvents") if isinstance(data, dict) else None
    if not isinstance(events, list):
        raise ValueError(f"{path}: no 'traceEvents' list, so not a Chrome trace")
    phases, names = collections.Counter(), collections.Counter()
    for i, ev in enumerate(events):
        phases[ev.get("ph")] += 1
        if ev.get("ph") == "X":
            missing = [k for k in ("name", "ts", "dur") if k not in ev]
            if missing:
                raise ValueError(f"{path}: traceEvents[{i}] (ph X) lacks {', '.join(missing)}")
            names[ev["name"]] += 1
    return TraceSummary(len(events), dict(phases), dict(names))


# %% src_literate/post1_qwen3_fusion_reading.pmd::op_kind
# matrix multiplies and attention: the compute-bound ops; the rest is memory-bound
GEMM_OPS = frozenset(
    "mm bmm addmm baddbmm addmv mv matmul linear convolution conv1d conv2d conv3d "
    "scaled_dot_product_attention _scaled_dot_product_flash_attention "
    "_scaled_dot_product_efficient_attention _scaled_dot_product_cudnn_attention "
    "_scaled_dot_product_flash_attention_for_cpu".split()
)
# attention backward kernels are compute-bound too, whatever the backend's op name
GEMM_SUBSTRINGS = ("scaled_dot_product", "flash_attention", "efficient_attention")
# ops whose schema says "may alias": a view when no copy is needed, a copy otherwise
MAYBE_COPY_OPS = frozenset("to reshape contiguous flatten dropout type_as".split())
# ops that move no data although their schema does not say "alias" (allocations included)
NO_DATA_OPS = frozenset(
    "_unsafe_view _reshape_alias resolve_conj resolve_neg lift_fresh "
    "empty empty_like empty_strided new_empty new_empty_strided".split()
)


def op_kind(name: str) -> str:
    """'gemm', 'view' (aliases its input, moves no data), 'maybe_copy' or 'other' for an aten op.

    `name` as the profiler writes it ("aten::mul"), as an overload ("mul.Tensor") or bare.
    """
    base = name.split("::")[-1].split(".")[0]
    if base in GEMM_OPS or any(s in base for s in GEMM_SUBSTRINGS):
        return "gemm"
    if base in MAYBE_COPY_OPS:
        return "maybe_copy"
    if base in NO_DATA_OPS:
        return "view"
    packet = getattr(torch.ops.aten, base, None)
    if packet is None:
        return "other"
    # the overloads that return tensors decide (slice.str returns a str)
    returns = [getattr(packet, o)._schema.returns for o in packet.overloads()]
    tensors = [r[0] for r in returns if r and _holds_tensors(r[0].type)]
    alias = [r.alias_info is not None and not r.alias_info.is_write for r in tensors]
    return "view" if alias and all(alias) else "other"


def _holds_tensors(t) -> bool:
    """A schema type that is a Tensor or a list of Tensors."""
    if isinstance(t, torch.ListType):
        t = t.getElementType()
    return isinstance(t, torch.TensorType)


# %% src_literate/post1_qwen3_fusion_reading.pmd::launch_stats
@dataclass(frozen=True)
class LaunchStats:
    """What one profiled step asks of the machine, counted; the two times vary run to run."""

    ops: int  # aten ops called from Python or autograd: one dispatch each
    gemm: int  # of those, matrix multiplies and attention
    views: int  # of those, views, allocations, no-op casts: dispatch cost, no data moved
    kernels: int  # device kernels launched (0 without a GPU)
    cpu_us: float  # CPU time inside those ops
    device_us: float  # device time of the kernels


def _outer_aten_ops(prof) -> list:
    """aten ops with no aten op above them: what Python and autograd called directly."""
    out = []
    for e in prof.events():
        parent = e.cpu_parent
        while parent is not None and not parent.name.startswith("aten::"):
            parent = parent.cpu_parent
        if e.name.startswith("aten::") and parent is None:
            out.append(e)
    return out


def _copies(event) -> bool:
    """Whether a may-alias op (reshape, to, contiguous...) copied: some op under it ran copy_."""
    return any(c.name == "aten::copy_" or _copies(c) for c in event.cpu_children)


def launch_stats(prof) -> LaunchStats:
    """Count the ops, GEMMs, views and kernels of a profile (see LaunchStats)."""
    outer = _outer_aten_ops(prof)
    kinds = [op_kind(e.name) for e in outer]
    no_copy = [k == "maybe_copy" and not _copies(e) for k, e in zip(kinds, outer, strict=True)]
    kernels = [k for e in prof.events() for k in e.kernels]
    return LaunchStats(
        ops=len(outer),
        gemm=kinds.count("gemm"),
        views=kinds.count("view") + sum(no_copy),
        kernels=len(kernels),
        cpu_us=sum(e.cpu_time_total for e in outer),
        device_us=sum(k.duration for k in kernels),
    )
