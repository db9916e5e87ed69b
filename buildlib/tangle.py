"""Tangling: the code chunks of every source become the modules of `generated/qwen3_fusion/`."""

from __future__ import annotations

import ast

from .errors import BuildError
from .source import PACKAGE, Source

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
    return files


def module_text(src: Source, mod: str) -> str:
    """One module: banner, then each chunk behind a marker naming its source line, then __all__."""
    pieces = [BANNER.format(src=src.rel)]
    for chunk in src.chunks:
        if chunk.module != mod:
            continue
        name = chunk.options.get("name")
        label = f" ({name})" if name else ""
        pieces.append(f"\n\n# --- {src.rel}:{chunk.line}{label} ---\n{chunk.code.strip()}\n")
    text = "".join(pieces)
    public = public_names(text)
    if public:
        items = "".join(f'    "{n}",\n' for n in public)
        text += f"\n\n__all__ = [\n{items}]\n"
    return text


def public_names(text: str) -> list[str]:
    """Top-level functions, classes and assigned names that do not start with '_'."""
    try:
        tree = ast.parse(text)
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
    return sorted(n for n in dict.fromkeys(names) if not n.startswith("_"))


def _check_syntax(text: str, src: Source, mod: str) -> None:
    """Compile a module; a syntax error is reported at its line in the .pmd."""
    try:
        compile(text, f"{PACKAGE}.{mod}", "exec")
    except SyntaxError as e:
        raise BuildError(
            f"syntax error in module {mod!r}: {e.msg}", src.rel, source_line(text, e.lineno or 1)
        ) from None


def source_line(text: str, lineno: int) -> int | None:
    """Map a line of a tangled module back to its line in the .pmd via the chunk markers."""
    lines = text.split("\n")
    for i in range(min(lineno, len(lines)) - 1, -1, -1):
        ln = lines[i]
        if ln.startswith("# --- ") and ln.endswith(" ---"):
            loc = ln[6:-4].split(" ")[0]
            header = int(loc.rsplit(":", 1)[1])
            return header + (lineno - 1 - i)
    return None


def package_init(owner: dict[str, Source]) -> str:
    """The package's __init__: a docstring listing each module and its source; no imports."""
    rows = "".join(f"    {PACKAGE}.{m:<20} <- {s.rel}\n" for m, s in sorted(owner.items()))
    return (
        BANNER.format(src="src_literate/*.pmd")
        + '"""Code of the 训推加速 posts on Qwen3 fusion and Triton kernels.\n\n'
        + "Modules (import the one you need; importing the package loads nothing):\n\n"
        + rows
        + '"""\n\n__all__ = [\n'
        + "".join(f'    "{m.split(".")[0]}",\n' for m in dict.fromkeys(sorted(owner)))
        + "]\n"
    )


def _subpackage_init(name: str) -> str:
    return BANNER.format(src="src_literate/*.pmd") + f'"""Sub-package {PACKAGE}.{name}."""\n'
