"""Tangling: the code chunks of every source become the modules of `generated/qwen3_fusion/`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .errors import BuildError
from .markdown import headings
from .source import PACKAGE, Source

MARKER = "# %% {src}::{name}"
MARKER_RE = re.compile(r"^# %% (?P<src>\S+)::(?P<name>[\w-]+)$")
BANNER = (
    "# GENERATED FILE - DO NOT EDIT.\n"
    "# Tangled from {src} by `python build.py tangle`; edit the source instead.\n"
)


def tangle(sources: list[Source]) -> dict[str, str]:
    """Return {path relative to generated/: text} for the whole package."""
    owner: dict[str, Source] = {}
    for src in sources:
        for mod in src.modules():
            if mod in owner and owner[mod] is not src:
                first = next(c for c in src.chunks if c.module == mod)
                raise BuildError(
                    f"module {mod!r} is already written by {owner[mod].rel}", src.rel, first.line
                )
            owner[mod] = src
    for mod, src in owner.items():
        parent = next((m for m in owner if mod.startswith(m + ".")), None)
        if parent is not None:
            first = next(c for c in src.chunks if c.module == mod)
            raise BuildError(
                f"module {mod!r} would make {parent}.py a package and hide it"
                f" ({parent!r} is written by {owner[parent].rel})",
                src.rel,
                first.line,
            )
    files: dict[str, str] = {}
    for mod, src in sorted(owner.items()):
        rel = f"{PACKAGE}/{mod.replace('.', '/')}.py"
        files[rel] = module_text(src, mod)
        _check_syntax(files[rel], src, mod)
        parts = mod.split(".")[:-1]
        for depth in range(1, len(parts) + 1):
            pkg = f"{PACKAGE}/{'/'.join(parts[:depth])}/__init__.py"
            files.setdefault(pkg, _subpackage_init(".".join(parts[:depth])))
    files[f"{PACKAGE}/__init__.py"] = package_init(owner)
    files[f"{PACKAGE}/py.typed"] = ""  # PEP 561: the package's annotations are for type checkers
    return files


PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def package_version() -> str:
    """The [project] version of pyproject.toml, the one place it is written (__version__ copies it)."""
    # a regex, not tomllib: the build also runs on Python 3.10, which has no tomllib
    m = re.search(r'^version = "([^"]+)"', PYPROJECT.read_text(encoding="utf-8"), flags=re.M)
    if not m:
        raise BuildError('no [project] version = "..." line', "pyproject.toml")
    return m.group(1)


def module_text(src: Source, mod: str) -> str:
    """One module: banner, docstring, __all__, then each chunk behind a marker naming it."""
    chunks = [c for c in src.chunks if c.module == mod]
    lead, first = _leading_docstring(chunks[0].code)
    bodies = [first] + [c.code.strip() for c in chunks[1:]]
    code = "".join(
        f"\n\n{MARKER.format(src=src.rel, name=c.name)}\n{body}\n"
        for c, body in zip(chunks, bodies, strict=True)
    )
    hidden = set()
    for c in chunks:
        if not c.export:
            hidden |= set(defined_names(c.code))
    public = sorted(n for n in defined_names(code) if not n.startswith("_") and n not in hidden)
    chapters = _chapters_of(src, chunks)
    head = f"{lead}\n\n" if lead else f"{PACKAGE}.{mod}: {_summary(public)}.\n\n"
    doc = (
        f'"""{head}'
        f"Tangled from {src.rel} ({chapters}); every block below is marked with its chunk.\n"
        '"""\n'
    )
    items = "".join(f'    "{n}",\n' for n in sorted(public))
    all_block = f"\n__all__ = [\n{items}]\n" if public else "\n__all__: list[str] = []\n"
    return BANNER.format(src=src.rel) + doc + all_block + code


def _leading_docstring(code: str) -> tuple[str, str]:
    """(docstring, rest) when a module's first chunk opens with a docstring: it becomes the
    module's docstring, so `help(qwen3_fusion.<module>)` says what the module is for."""
    code = code.strip()
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return "", code
    first = body[0] if body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):  # fmt: skip
        return "", code
    rest = "\n".join(code.split("\n")[first.end_lineno:]).strip()
    return first.value.value.strip().replace('"""', "'''"), rest


def _summary(public: list[str]) -> str:
    if not public:
        return "internal helpers"
    if len(public) <= 4:
        return ", ".join(public)
    return f"{', '.join(public[:3])} and {len(public) - 3} more (see __all__)"


def _chapters_of(src: Source, chunks: list) -> str:
    """The chapters (## headings) of the source that hold these chunks, e.g. "§四, §五"."""
    heads = [(h.line, h.text.split(" ")[0]) for h in headings(src.body) if h.level == 2]
    seen: list[str] = []
    for c in chunks:
        title = next((t for line, t in reversed(heads) if line < c.line), None)
        if title and title not in seen:
            seen.append(title)
    return ", ".join(seen) or "its code chunks"


def defined_names(code: str) -> list[str]:
    """Top-level functions, classes and assigned names, in order of definition."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return list(dict.fromkeys(names))


def _check_syntax(text: str, src: Source, mod: str) -> None:
    """Compile a module; a syntax error is reported at its line in the .pmd."""
    try:
        compile(text, f"{PACKAGE}.{mod}", "exec")
    except SyntaxError as e:
        raise BuildError(
            f"syntax error in module {mod!r}: {e.msg}",
            src.rel,
            source_line(text, e.lineno or 1, src),
        ) from None


def source_line(text: str, lineno: int, src: Source) -> int | None:
    """Map a line of a tangled module back to its line in the .pmd via the chunk markers."""
    lines = text.split("\n")
    by_name = {c.name: c for c in src.chunks if c.name}
    for i in range(min(lineno, len(lines)) - 1, -1, -1):
        m = MARKER_RE.match(lines[i])
        if m and m.group("name") in by_name:
            return by_name[m.group("name")].line + (lineno - 1 - i)
    return None


def package_init(owner: dict[str, Source]) -> str:
    """The package's __init__: a docstring listing each module and its source; no imports."""
    rows = "".join(f"    {PACKAGE}.{m:<20} <- {s.rel}\n" for m, s in sorted(owner.items()))
    return (
        BANNER.format(src="src_literate/*.pmd")
        + '"""Code of the 训推加速 posts on Qwen3 fusion and Triton kernels.\n\n'
        + "Modules (import the one you need; importing the package loads nothing):\n\n"
        + rows
        + '"""\n\n'
        + f'__version__ = "{package_version()}"  # [project] version of pyproject.toml\n\n'
        + "__all__ = [\n"
        + "".join(f'    "{m.split(".")[0]}",\n' for m in dict.fromkeys(sorted(owner)))
        + "]\n"
    )


def _subpackage_init(name: str) -> str:
    return BANNER.format(src="src_literate/*.pmd") + f'"""Sub-package {PACKAGE}.{name}."""\n'
