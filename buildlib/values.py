"""Reading the build's input files and checking their values, each mistake as one located line.

Every text input (sources, series.yaml, results, the palette, templates) is read through
`read_text`, so a file that is not UTF-8 is named with the line of its first bad byte. YAML is
loaded without implicit timestamps (a date stays the text the author wrote, and `2026-13-45` is
our error to report, not PyYAML's traceback); JSON refuses NaN and Infinity, which no figure in
a post may be.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import yaml

from .errors import BuildError

# a slug becomes a file name under posts/ and _freeze/ and a URL path segment
SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
VERSION_RE = re.compile(r"\d+(?:\.\d+){0,2}\Z")
BOM = "\ufeff"


def rel_of(path: Path, root: Path | None) -> str:
    if root is not None and path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    return str(path)


def read_text(path: Path, root: Path | None = None) -> str:
    """The file's text; not UTF-8, a NUL byte or unreadable is a BuildError naming file and line."""
    rel = rel_of(path, root)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BuildError("file is missing", rel) from None
    except OSError as e:
        raise BuildError(f"cannot read: {e.strerror}", rel) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise BuildError(
            f"not UTF-8 (byte 0x{data[e.start]:02x}); save it as UTF-8", rel, line
        ) from None
    if "\x00" in text:
        raise BuildError("contains a NUL byte", rel, text.count("\n", 0, text.index("\x00")) + 1)
    # an editor's byte order mark is no part of the text (YAML front matter must start the file)
    return text.removeprefix(BOM)


class _Loader(yaml.SafeLoader):
    """Safe YAML without implicit timestamps (dates stay strings, checked by `iso_date`) and
    without silent duplicate keys (PyYAML keeps the last one)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key) if isinstance(key, (str, int, float, bool)) else None
        return super().construct_mapping(node, deep)


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


PIN_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)==([^\s#;]+)", re.M)


def dist_name(name: str) -> str:
    """A distribution's name as pip compares them: case, '-', '_' and '.' do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_versions(root: Path, files=("requirements.txt", "constraints.txt")) -> dict[str, str]:
    """{dist_name: version} of every `name==version` line in those of these files that exist."""
    pins = {}
    for name in files:
        path = root / name
        if path.is_file():
            pins |= {dist_name(m[1]): m[2] for m in PIN_RE.finditer(read_text(path, root))}
    return pins


def load_yaml(text: str, rel: str, first_line: int = 1):
    """Parse YAML; a syntax error is one line at its place in the file."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + first_line if mark else first_line
        raise BuildError(f"not valid YAML: {getattr(e, 'problem', None) or e}", rel, line) from None


def _no_constant(name: str):
    raise ValueError(f"{name} is no number a post can show")


def load_json(path: Path, root: Path) -> object:
    """A JSON input; NaN, Infinity and syntax errors are one line naming file and line."""
    rel = rel_of(path, root)
    text = read_text(path, root)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise BuildError(f"not JSON: {e.msg}", rel, e.lineno) from None
    except RecursionError:
        raise BuildError("not JSON a build can read: nested too deeply", rel) from None
    except ValueError as e:
        word = str(e).split()[0]
        line = text.count("\n", 0, max(text.find(word), 0)) + 1
        raise BuildError(f"{e} (write null or leave the entry out)", rel, line) from None


def check_slug(slug: object, rel: str, line: int | None) -> str:
    if not isinstance(slug, str) or not SLUG_RE.match(slug):
        raise BuildError(
            f"slug {slug!r}: use lowercase letters, digits and single hyphens (it names files"
            " under posts/ and the post's URL)",
            rel,
            line,
        )
    return slug


def iso_date(value: object, rel: str, line: int | None) -> str:
    """A front matter date: YYYY-MM-DD that is a real day."""
    text = str(value)
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            raise ValueError
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise BuildError(f"date {text!r} is not a real day written YYYY-MM-DD", rel, line) from None


def min_versions(value: object, rel: str, line: int | None) -> dict[str, str]:
    """`{torch: "2.11", triton: "3.6"}`: quoted versions (2.10 unquoted is the float 2.1)."""
    if not isinstance(value, dict):
        raise BuildError(
            'min_versions must be a mapping like {torch: "2.11", triton: "3.6"}', rel, line
        )
    for name, version in value.items():
        if name not in ("torch", "triton"):
            raise BuildError(f"min_versions names {name!r}; only torch and triton", rel, line)
        if not isinstance(version, str) or not VERSION_RE.match(version):
            raise BuildError(
                f'min_versions {name}: {version!r} must be a quoted version like "2.10"'
                " (YAML reads 2.10 unquoted as the number 2.1)",
                rel,
                line,
            )
    return value
