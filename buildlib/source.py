"""Reading a `.pmd` source: its front matter, its prose and its code chunks, with their line numbers.

Pweave's own reader accepts any chunk option and evaluates headers with `exec`; this reader
parses headers itself (literal values only), validates every option and remembers lines, so a
mistake is reported as `file.pmd:line: ...` before Pweave sees the file.
"""

from __future__ import annotations

import ast
import keyword
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BuildError
from .markdown import fences, split_front_matter
from .values import check_slug, iso_date, load_yaml, min_versions, read_text

PACKAGE = "qwen3_fusion"
# package folders that are links to committed data rather than tangled text (path under generated/ ->
# folder under the repository root): the GPU results, installed with the package for its readers
DATA_LINKS = {f"{PACKAGE}/_results": "src_literate/results"}

# options a chunk may carry, with the types their values must have
CHUNK_OPTIONS: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "module": (str,),
    "visibility": (str,),
    "summary": (str,),
    "results": (str,),
    "gpu": (str,),
    "timeout": (int,),
    "export": (bool,),
}
RESULTS_MODES = ("verbatim", "hidden", "raw")
# what the reader sees of a chunk's code: all of it, a <details> block with a summary, or nothing
VISIBILITY_MODES = ("shown", "folded", "hidden")
DEFAULT_TIMEOUT_S = 300
FRONT_MATTER_KEYS = {
    "title",
    "slug",
    "date",
    "tags",
    "description",
    "target_chars",
    "code_budget",
    "min_versions",
    "min_prose_share",
}
REQUIRED_FRONT_MATTER = ("title", "slug", "date", "tags", "description", "target_chars")
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")  # a newline included: one line of text
MODULE_RE = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$")
# an info string that means to be a python chunk ({python}, {.python}, python3 ... included)
CHUNK_LIKE = re.compile(r"^\{?\.?python")
CHUNK_HEADER = re.compile(r"^python(?:,\s*(?P<opts>.*?))?\s*$")
NAME_RE = re.compile(r"^[A-Za-z_][\w-]*$")
SAME_SOURCE_IMPORT = re.compile(rf"^from {PACKAGE}\.(?P<mod>[\w.]+) import [^(]*$")


@dataclass
class Chunk:
    """One code chunk: its code, its validated options and the line of its header."""

    code: str
    line: int
    options: dict = field(default_factory=dict)
    end: int = 0  # line of the closing fence

    @property
    def module(self) -> str | None:
        return self.options.get("module")

    @property
    def name(self) -> str | None:
        return self.options.get("name")

    @property
    def visibility(self) -> str:
        return self.options.get("visibility", "shown")

    @property
    def summary(self) -> str | None:
        return self.options.get("summary")

    @property
    def timeout(self) -> int:
        return self.options.get("timeout", DEFAULT_TIMEOUT_S)

    @property
    def export(self) -> bool:
        return self.options.get("export", True)

    @property
    def results(self) -> str:
        return self.options.get("results", "verbatim")

    @property
    def gpu(self) -> str | None:
        return self.options.get("gpu")


@dataclass
class Source:
    """A parsed source: front matter, body text (front matter blanked, lines kept) and chunks."""

    path: Path
    rel: str
    meta: dict
    body: str
    chunks: list[Chunk]
    meta_lines: dict = field(default_factory=dict)  # front matter key -> its line, for errors

    @property
    def slug(self) -> str:
        return self.meta["slug"]

    def modules(self) -> list[str]:
        """Target modules in order of first appearance."""
        seen: list[str] = []
        for c in self.chunks:
            if c.module and c.module not in seen:
                seen.append(c.module)
        return seen

    def visible_code(self, chunk: Chunk) -> str:
        """The chunk as a reader sees and runs it.

        An import from a module of this source is dropped when the reader has seen all of that
        module's code (no chunk of it hidden); otherwise the reader needs the installed package.
        """
        lines = chunk.code.split("\n")
        return "\n".join(lines[k] for k in self._visible_lines(chunk))

    def code_line(self, chunk: Chunk, n: int) -> int:
        """The line of the chunk's code (1-based) that is line `n` of its visible code."""
        kept = self._visible_lines(chunk)
        return kept[n - 1] + 1 if 0 < n <= len(kept) else 0

    def _visible_lines(self, chunk: Chunk) -> list[int]:
        own = {
            m
            for m in self.modules()
            if all(c.visibility != "hidden" for c in self.chunks if c.module == m)
        }
        lines = chunk.code.split("\n")
        kept = [
            k
            for k, ln in enumerate(lines)
            if not ((m := SAME_SOURCE_IMPORT.match(ln)) and m.group("mod") in own)
        ]
        # blank lines at either end are not part of what the reader sees
        while kept and not lines[kept[0]]:
            kept.pop(0)
        while kept and not lines[kept[-1]]:
            kept.pop()
        return kept


def parse_source(path: Path, root: Path) -> Source:
    """Read and validate one `.pmd` file."""
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    text = read_text(path, root)
    meta, body = _split_front_matter(text, rel)
    chunks = _scan_chunks(body, rel)
    lines = text.split("\n")
    meta_lines = {key: _key_line(lines, key) for key in meta}
    src = Source(path=path, rel=rel, meta=meta, body=body, chunks=chunks, meta_lines=meta_lines)
    for chunk in chunks:
        _check_python(src, chunk)
    return src


def _check_python(src: Source, chunk: Chunk) -> None:
    """A chunk that is not Python fails here, before any chunk runs."""
    try:
        ast.parse(src.visible_code(chunk))
    except SyntaxError as e:
        line = chunk.line + src.code_line(chunk, e.lineno or 1)
        hint = ""
        fence = re.search(r"^[ \t]*(```|~~~)", chunk.code, re.M)
        if fence:
            at = chunk.line + 1 + chunk.code.count("\n", 0, fence.start())
            hint = f" (line {at} inside it starts with {fence.group(1)}: is a fence left open?)"
        raise BuildError(f"chunk is not valid Python: {e.msg}{hint}", src.rel, line) from None


def _split_front_matter(text: str, rel: str) -> tuple[dict, str]:
    lines = text.split("\n")
    try:
        raw, first_body = split_front_matter(text)
    except ValueError as e:
        raise BuildError(str(e), rel, 1) from None
    if raw is None:
        raise BuildError("missing YAML front matter (the file must start with '---')", rel, 1)
    meta = load_yaml(raw, rel, first_line=2) or {}
    if not isinstance(meta, dict):
        raise BuildError("front matter must be a mapping", rel, 2)
    for key in meta:
        if key not in FRONT_MATTER_KEYS:
            raise BuildError(f"unknown front matter key {key!r}", rel, _key_line(lines, key))
    for key in REQUIRED_FRONT_MATTER:
        if key not in meta:
            raise BuildError(f"front matter lacks {key!r}", rel, 1)
    for key in ("title", "description", "slug"):
        if not _one_line(meta[key]):
            raise BuildError(f"{key} must be one line of text", rel, _key_line(lines, key))
    check_slug(meta["slug"], rel, _key_line(lines, "slug"))
    meta["date"] = iso_date(meta["date"], rel, _key_line(lines, "date"))
    if not isinstance(meta["tags"], list) or not all(_one_line(t) for t in meta["tags"]):
        raise BuildError("tags must be a list of one-line strings", rel, _key_line(lines, "tags"))
    if "min_versions" in meta:
        min_versions(meta["min_versions"], rel, _key_line(lines, "min_versions"))
    if "min_prose_share" in meta:
        min_prose_share(meta["min_prose_share"], rel, _key_line(lines, "min_prose_share"))
    for key in ("target_chars", "code_budget"):
        if key in meta and (
            not isinstance(meta[key], int) or isinstance(meta[key], bool) or meta[key] <= 0
        ):
            raise BuildError(f"{key} must be a positive integer", rel, _key_line(lines, key))
    # blank the front matter but keep its lines, so body line numbers are file line numbers
    body = "\n" * first_body + "\n".join(lines[first_body:])
    return meta, body


def min_prose_share(value: object, rel: str, line: int) -> None:
    """{chapter title prefix: least share of the post's prose}, e.g. {"§二": 0.45}."""
    ok = isinstance(value, dict) and value and all(
        _one_line(k) and isinstance(v, float) and 0 < v < 1 for k, v in value.items()
    )
    if not ok:
        raise BuildError("min_prose_share must map chapter title prefixes to fractions in (0, 1)", rel, line)


def _one_line(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip()) and not CONTROL_CHARS.search(value)


def _key_line(lines: list[str], key: str) -> int:
    for i, ln in enumerate(lines, 1):
        if ln.startswith(f"{key}:"):
            return i
    return 1


def _scan_chunks(body: str, rel: str) -> list[Chunk]:
    chunks: list[Chunk] = []
    names: dict[str, int] = {}
    for fence in fences(body):
        if not fence.closed:
            raise BuildError(f"fenced block is not closed by {fence.marker}", rel, fence.line)
        if not CHUNK_LIKE.match(fence.info):
            continue
        header = CHUNK_HEADER.match(fence.info)
        if not header:
            raise BuildError(
                f"malformed chunk header {fence.info!r}: write ```python or ```python, key=value, ...",
                rel,
                fence.line,
            )
        if not fence.body.strip():
            raise BuildError("empty chunk", rel, fence.line)
        options = parse_options(header.group("opts") or "", rel, fence.line)
        name = options.get("name")
        if options.get("module") and name is None:
            raise BuildError(
                'a module chunk needs name="..." (its marker in the tangled module)',
                rel,
                fence.line,
            )
        if name is not None:
            if not NAME_RE.match(name):
                raise BuildError(
                    f"chunk name {name!r}: use letters, digits, '_' and '-' only", rel, fence.line
                )
            if name in names:
                raise BuildError(
                    f"chunk name {name!r} already used at line {names[name]}", rel, fence.line
                )
            names[name] = fence.line
        chunks.append(Chunk(code=fence.body, line=fence.line, options=options, end=fence.end))
    return chunks


def parse_options(text: str, rel: str, line: int) -> dict:
    """Parse `key="value", key=False` with literal values only, and validate each option."""
    if not text.strip():
        return {}
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError as e:
        raise BuildError(f"chunk options are not valid keyword arguments: {e.msg}", rel, line)
    if not isinstance(call, ast.Call) or call.args:
        raise BuildError("chunk options must all be key=value (values quoted)", rel, line)
    options: dict = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise BuildError("chunk options cannot use **", rel, line)
        if kw.arg not in CHUNK_OPTIONS:
            allowed = ", ".join(CHUNK_OPTIONS)
            raise BuildError(f"unknown chunk option {kw.arg!r} (allowed: {allowed})", rel, line)
        try:
            value = ast.literal_eval(kw.value)
        except ValueError:
            raise BuildError(
                f"chunk option {kw.arg!r} must be a literal (quote strings)", rel, line
            ) from None
        if not isinstance(value, CHUNK_OPTIONS[kw.arg]) or (
            isinstance(value, bool) and bool not in CHUNK_OPTIONS[kw.arg]
        ):
            want = {"str": "a string", "int": "an integer", "bool": "True or False"}[
                CHUNK_OPTIONS[kw.arg][0].__name__
            ]
            raise BuildError(f"chunk option {kw.arg!r} must be {want}", rel, line)
        options[kw.arg] = value
    if "results" in options and options["results"] not in RESULTS_MODES:
        raise BuildError(f"results must be one of {', '.join(RESULTS_MODES)}", rel, line)
    visibility = options.get("visibility", "shown")
    if visibility not in VISIBILITY_MODES:
        raise BuildError(
            f"visibility {visibility!r} is not one of {', '.join(VISIBILITY_MODES)}", rel, line
        )
    summary = options.get("summary")
    if visibility == "folded" and not (summary and summary.strip()):
        raise BuildError('a folded chunk needs summary="<one line the reader sees>"', rel, line)
    if summary is not None and visibility != "folded":
        raise BuildError('summary= belongs to visibility="folded" chunks only', rel, line)
    if summary is not None and "\n" in summary:
        raise BuildError("summary must be one line", rel, line)
    if "timeout" in options and options["timeout"] <= 0:
        raise BuildError("timeout must be a positive number of seconds", rel, line)
    if "export" in options and "module" not in options:
        raise BuildError("export= applies to module chunks only", rel, line)
    module = options.get("module")
    if module is not None and not MODULE_RE.match(module):
        raise BuildError(
            f"module {module!r} escapes generated/{PACKAGE}/: use a dotted lowercase name like 'rmsnorm'",
            rel,
            line,
        )
    if module is not None and any(
        keyword.iskeyword(part) or part.startswith("__") for part in module.split(".")
    ):
        raise BuildError(
            f"module {module!r}: a Python keyword or a __dunder__ name cannot be imported as a module",
            rel,
            line,
        )
    if module is not None and options.get("gpu"):
        raise BuildError("a module chunk must import without a GPU: drop gpu= from it", rel, line)
    return options


def discover_sources(root: Path) -> list[Path]:
    """The sources of the posts, in a fixed order."""
    return sorted((root / "src_literate").glob("*.pmd"))
