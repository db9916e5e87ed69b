"""Mermaid diagrams: the series palette, static checks, and a real render in headless Chromium.

Mermaid lets several mistakes pass without a word (a class that has no ``classDef``, ``style`` on a
node that does not exist, a malformed ``%%{init}%%``, a ``themeVariables`` value containing ``-``), so
:func:`lint` checks those statically, and :func:`render_all` runs mermaid's own ``parse`` and
``render`` on every diagram in one headless Chromium, loading the pinned ``node_modules/mermaid``
(``npm ci``) from disk: no CDN, no network.

The browser is Debian's chromium driven by Playwright (:mod:`buildlib.browser`).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import browser

ROOT = Path(__file__).resolve().parent.parent
MERMAID_JS = ROOT / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
PAGE = Path(__file__).resolve().parent / "mermaid_page.html"

# The comment line that decorate() writes between an author's body and the palette's classDef lines;
# lint() takes the init on line 1 and the classDefs below it as the palette's, not the author's.
PALETTE_MARK = "%% series colours"  # splits the author's lines from the classDefs the build adds

# Top-level keys of MermaidConfig in mermaid 11.17.2 (dist/config.type.d.ts); mermaid ignores others.
CONFIG_KEYS = frozenset(
    "theme themeVariables themeCSS look handDrawnSeed layout maxTextSize maxEdges elk darkMode "
    "htmlLabels fontFamily altFontFamily logLevel securityLevel startOnLoad arrowMarkerAbsolute "
    "secure legacyMathML forceLegacyMathML deterministicIds deterministicIDSeed flowchart swimlane "
    "sequence gantt journey timeline class state er pie quadrantChart xyChart requirement "
    "architecture mindmap ishikawa kanban gitGraph c4 sankey packet block eventmodeling treeView "
    "radar venn cynefin railroad dompurifyConfig wrap fontSize markdownAutoWrap "
    "suppressErrorRendering".split()
)
THEMES = frozenset(
    "default base dark forest neutral neo neo-dark redux redux-dark redux-color redux-dark-color "
    "null".split()
)
# Diagram types whose grammar has classDef (tried on 11.17.2; sequence, gantt, pie, mindmap, timeline,
# xychart and architecture diagrams reject a classDef line).
CLASSDEF_TYPES = frozenset(
    "flowchart graph stateDiagram stateDiagram-v2 classDiagram erDiagram block-beta block".split()
)

CHROMIUM_HINT = browser.CHROMIUM_HINT
NPM_HINT = (
    "mermaid check and preview need node_modules/mermaid (pinned in package-lock.json): run "
    "`npm ci` in the repository root"
)


class MermaidUnavailable(Exception):
    """Chromium or node_modules/mermaid is missing; the message says how to install it."""


@dataclass(frozen=True)
class Diagram:
    post: str  # e.g. "posts/qwen3-fusion-reading.md"
    line: int  # line of the ```mermaid fence in that file
    source: str  # the diagram text as woven (palette init line + body + classDef lines)


# --------------------------------------------------------------------------------------------------
# Palette


def _init_problems(init: object) -> list[str]:
    """What is wrong with an init object (empty when it is sane)."""
    if not isinstance(init, dict):
        return [f"init must be an object, got {type(init).__name__}"]
    problems = []
    for key, value in init.items():
        if key not in CONFIG_KEYS:
            problems.append(f"init key {key!r} is not a mermaid config key (mermaid ignores it)")
        if isinstance(value, str) and ("'" in value or "}%%" in value):
            problems.append(f"init value {key}: {value!r} must not contain ' or }}%%")
    theme = init.get("theme")
    if theme is not None and theme not in THEMES:
        problems.append(f"theme {theme!r} is not one of {', '.join(sorted(THEMES))}")
    tv = init.get("themeVariables")
    if tv is not None:
        if not isinstance(tv, dict):
            problems.append("themeVariables must be an object")
        else:
            for key, value in tv.items():
                if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                    problems.append(f"themeVariables.{key} must be a string or number")
                elif "-" in str(value):
                    problems.append(
                        f"themeVariables.{key} = {value!r} contains '-': mermaid silently drops "
                        "such a value (put fontFamily at the top level of init)"
                    )
    return problems


_CLASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CLASS_STYLE = re.compile(r"[a-z-]+:[^,;:]+(,[a-z-]+:[^,;:]+)*\Z")


def load_palette(path: str | os.PathLike = "templates/mermaid_palette.yaml") -> dict:
    """Read and validate the series palette: {"init": {...}, "classes": {name: "fill:...,..."}}."""
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except OSError as e:
        raise ValueError(f"{path}: cannot read: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise ValueError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(data, dict) or set(data) != {"init", "classes"}:
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{path}: must have exactly the keys init and classes, got {keys}")
    problems = _init_problems(data["init"])
    classes = data["classes"]
    if not isinstance(classes, dict) or not classes:
        problems.append("classes must be a non-empty mapping of class name to style")
    else:
        for name, style in classes.items():
            if not isinstance(name, str) or not _CLASS_NAME.match(name):
                problems.append(f"class name {name!r} must be an identifier")
            if not isinstance(style, str) or not _CLASS_STYLE.match(style.replace(" ", "")):
                problems.append(f"class {name}: style {style!r} must be 'prop:value,prop:value'")
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems))
    return data


def _split_front_matter(body: str) -> tuple[str, str]:
    """(front matter block including its closing '---' line, rest) of a diagram."""
    m = re.match(r"---[ \t]*\n.*?\n---[ \t]*\n", body, flags=re.S)
    return (m.group(0), body[m.end() :]) if m else ("", body)


def diagram_type(source: str) -> str:
    """The diagram's type keyword (``flowchart``, ``sequenceDiagram``, ...), '' when there is none."""
    _, rest = _split_front_matter(source)
    rest = re.sub(r"%%\{.*?\}%%", "", rest, flags=re.S)
    for line in rest.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("%%"):
            return stripped.split()[0].rstrip(";")
    return ""


def decorate(body: str, palette: dict) -> str:
    """The diagram as woven: the palette's init line, the author's body, the palette's classDefs."""
    init = json.dumps(palette["init"], ensure_ascii=False, separators=(",", ":"))
    front, rest = _split_front_matter(body.strip("\n") + "\n")
    lines = [f"{front}%%{{init: {init}}}%%\n{rest}{PALETTE_MARK}"]
    if diagram_type(rest) in CLASSDEF_TYPES:
        lines += [f"classDef {name} {style}" for name, style in palette["classes"].items()]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# Static checks

_DIRECTIVE = re.compile(r"%%\{(.*?)\}%%", flags=re.S)
_CLOSERS = {"[": "]", "(": ")", "{": "}", "|": "|"}


def _blank_labels(line: str) -> str:
    """The line with text inside brackets, quotes and |edge labels| replaced by spaces."""
    out, stack = [], []
    for ch in line:
        if stack and ch == stack[-1]:
            stack.pop()
            out.append(" " if ch == '"' else ch)
        elif stack and stack[-1] == '"':
            out.append(" ")
        elif ch == '"':
            stack.append('"')
            out.append(" ")
        elif ch in _CLOSERS and (ch != "|" or not stack):
            stack.append(_CLOSERS[ch])
            out.append(ch)
        else:
            out.append(" " if stack else ch)
    return "".join(out)


def _parse_directive(content: str) -> tuple[str, object, str]:
    """(name, parsed argument or None, error) of the text between %%{ and }%%."""
    m = re.match(r"\s*(\w+)\s*(?::\s*(.*?))?\s*\Z", content, flags=re.S)
    if not m:
        return "", None, "is not of the form %%{name: {...}}%%"
    name, arg = m.group(1), m.group(2)
    if name not in ("init", "initialize"):
        return name, None, ""
    if arg is None:
        return name, None, "has no argument (write %%{init: {...}}%%)"
    # mermaid turns every ' into " and then runs JSON.parse on the argument
    try:
        value = json.loads(arg.replace("'", '"'))
    except json.JSONDecodeError as e:
        return name, None, f"argument is not a JSON object ({e.msg} at column {e.colno})"
    if not isinstance(value, dict):
        return name, None, "argument is not a JSON object"
    return name, value, ""


def lint(source: str, palette_classes: set[str]) -> list[str]:
    """Problems mermaid would let pass silently; each message starts 'line k of the diagram: '."""
    lines = source.split("\n")
    decorated = PALETTE_MARK in lines
    mark_at = lines.index(PALETTE_MARK) if decorated else len(lines)
    problems: list[tuple[int, str]] = []

    front, _ = _split_front_matter(source)
    front_lines = front.count("\n")
    if front and re.search(r"^\s*config\s*:", front, flags=re.M):
        problems.append(
            (1, "front matter 'config:' sets mermaid options; the palette is the one place")
        )

    for m in _DIRECTIVE.finditer(source):
        k = source.count("\n", 0, m.start()) + 1
        name, value, error = _parse_directive(m.group(1))
        if error:
            problems.append((k, f"malformed %%{{{name or '?'}}}%% directive: {error}"))
        elif name not in ("init", "initialize", "wrap"):
            problems.append((k, f"unknown directive %%{{{name}}}%% (mermaid ignores it)"))
        if name in ("init", "initialize"):
            if not (decorated and k == front_lines + 1):
                problems.append((k, "author-written %%{init}%%: the palette is the one place"))
            if value is not None:
                problems += [(k, p) for p in _init_problems(value)]
    spans = [m.span() for m in _DIRECTIVE.finditer(source)]
    for m in re.finditer(r"%%\{", source):
        if not any(a <= m.start() < b for a, b in spans):
            k = source.count("\n", 0, m.start()) + 1
            problems.append((k, "malformed directive: '%%{' without a closing '}%%'"))

    kind = diagram_type(source)
    class_diagram = kind == "classDiagram"
    flowchart = kind in ("flowchart", "graph")
    defined_classes: set[str] = set()
    defined_ids: set[str] = set()
    uses: list[tuple[int, str, str, str]] = []  # (line, "class"|"node", name, statement)
    for k, raw in enumerate(lines, start=1):
        if raw.lstrip().startswith("%%"):
            continue
        # flowchart labels sit in brackets; elsewhere a brace is syntax (ER cardinality, blocks)
        blanked = _blank_labels(raw) if flowchart else re.sub(r'"[^"]*"', " ", raw)
        for stmt in blanked.split(";"):
            words = stmt.split()
            if not words:
                continue
            head = words[0]
            if head == "classDef":
                if k <= mark_at:
                    problems.append((k, "author-written classDef: the palette is the one place"))
                if len(words) >= 2:
                    defined_classes.update(n for n in words[1].split(",") if n)
                continue
            if head == "class" and not class_diagram and len(words) >= 3:
                uses += [(k, "node", n, head) for n in words[1].split(",") if n]
                uses += [(k, "class", c, head) for c in words[2].split(",") if c]
                continue
            if head == "cssClass":
                m = re.match(r'\s*cssClass\s+"([^"]*)"\s+(\S+)', raw)
                if m:
                    nodes = [n.strip() for n in m.group(1).split(",") if n.strip()]
                    uses += [(k, "node", n, head) for n in nodes]
                    uses += [(k, "class", c, head) for c in m.group(2).split(",") if c]
                continue
            if head == "style" and len(words) >= 2:
                uses.append((k, "node", words[1], head))
                continue
            if head in ("linkStyle", "click"):
                continue
            for name in re.findall(r":::\s*([\w-]+(?:\s*,\s*[\w-]+)*)", stmt):
                uses += [(k, "class", c.strip(), ":::") for c in name.split(",")]
            no_links = re.sub(r"<?(?:[-=.~]{2,}|-\.+-)[>ox]?", " ", stmt)
            defined_ids.update(re.findall(r"[\w.\-\u0080-\U0010ffff]+", no_links))
            defined_ids.update(re.findall(r"[\w\u0080-\U0010ffff]+", stmt))

    known_classes = set(palette_classes) | defined_classes
    choices = ", ".join(sorted(palette_classes)) or "none"
    for k, what, name, head in uses:
        if what == "class" and kind not in CLASSDEF_TYPES:
            problems.append((k, f"{head} {name}: a {kind} has no classDef, so no palette colours"))
        elif what == "class" and name not in known_classes:
            problems.append((k, f"{head} uses class {name!r}, not a palette class ({choices})"))
        elif what == "node" and name not in defined_ids:
            problems.append((k, f"{head} names node {name!r}, which the diagram never defines"))
    return [f"line {k} of the diagram: {msg}" for k, msg in sorted(problems, key=lambda p: p[0])]


# --------------------------------------------------------------------------------------------------
# Rendering in headless Chromium


def find_chromium() -> str:
    """Path of a Chromium binary ($CHROMIUM first); MermaidUnavailable when there is none."""
    try:
        return browser.find_chromium()
    except browser.BrowserUnavailable as e:
        raise MermaidUnavailable(str(e)) from None


def find_mermaid_js() -> Path:
    """node_modules/mermaid/dist/mermaid.min.js; MermaidUnavailable when it is missing."""
    if not MERMAID_JS.is_file():
        raise MermaidUnavailable(NPM_HINT)
    return MERMAID_JS


def missing() -> str | None:
    """The install hint for what render_all needs and lacks (Chromium, Playwright, mermaid), or None."""
    try:
        find_mermaid_js()
    except MermaidUnavailable as e:
        return str(e)
    return browser.missing()


@contextmanager
def open_page(timeout_s: float = 60):
    """A Playwright page on the harness page with mermaid loaded; MermaidUnavailable if it cannot."""
    js = find_mermaid_js()
    with tempfile.TemporaryDirectory(prefix="mermaid-page-") as tmp:
        page_path = Path(tmp) / "mermaid_page.html"
        page_path.write_text(PAGE.read_text(encoding="utf-8").replace("__MERMAID_JS__", js.as_uri()))
        try:
            with browser.launch(timeout_s) as chromium:
                page = chromium.new_page()
                page.goto(page_path.as_uri(), timeout=timeout_s * 1000)
                if page.evaluate("typeof window.mermaidCheck") != "function":
                    raise MermaidUnavailable(f"{js} did not load in the page")
                yield page
        except browser.BrowserUnavailable as e:
            raise MermaidUnavailable(str(e)) from None


# mermaid's preprocessing (src/preprocess.ts, src/diagram-api/comments.ts in 11.17.2): drop the front
# matter, then the directives, then whole-line %% comments, then leading white space; its error
# messages count lines in what is left.
_MERMAID_FRONT = re.compile(r"^([^\S\n\r]*)-{3}\s*[\n\r](.*?)[\n\r]\1-{3}\s*[\n\r]+", flags=re.S)
_MERMAID_DIRECTIVE = re.compile(
    r"%{2}{\s*(?:(\w+)\s*:|(\w+))\s*(?:(\w+)|((?:(?!}%{2}).|\r?\n)*))?\s*(?:}%{2})?", flags=re.I
)
_MERMAID_COMMENT = re.compile(r"^\s*%%(?!{)[^\n]+\n?", flags=re.M)


def _mermaid_lines(source: str) -> list[int]:
    """For each line of the text mermaid parses, the line of source it comes from (1-based)."""
    text, origin = source, list(range(len(source)))

    def drop(pattern: re.Pattern, first_only: bool = False) -> None:
        nonlocal text, origin
        keep_text, keep_origin, at = [], [], 0
        for m in pattern.finditer(text):
            keep_text.append(text[at : m.start()])
            keep_origin += origin[at : m.start()]
            at = m.end()
            if first_only:
                break
        text, origin = "".join(keep_text) + text[at:], keep_origin + origin[at:]

    drop(_MERMAID_FRONT, first_only=True)
    drop(_MERMAID_DIRECTIVE)
    drop(_MERMAID_COMMENT)
    drop(re.compile(r"\A\s+"), first_only=True)
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    return [source.count("\n", 0, origin[p]) + 1 if p < len(origin) else 0 for p in starts]


def _locate(message: str, source: str) -> str:
    """mermaid's message, with 'line N' translated to the line of the diagram as shown."""
    m = re.search(r"\bon line (\d+)", message)
    lines = _mermaid_lines(source)
    if not m or not 1 <= int(m.group(1)) <= len(lines) or not lines[int(m.group(1)) - 1]:
        return message
    first, _, rest = message.partition("\n")
    where = f" [line {lines[int(m.group(1)) - 1]} of the diagram below]"
    return first + where + ("\n" + rest if rest else "")


def _show(source: str) -> str:
    return "\n".join(f"    {k:3d} | {line}" for k, line in enumerate(source.splitlines(), 1))


def render_all(diagrams: list[Diagram], timeout_s: float = 60) -> list[str]:
    """Run mermaid.parse and mermaid.render on every diagram in one headless Chromium.

    Returns one problem per failing diagram, "post:line: <mermaid's message>" followed by the diagram
    with line numbers; an empty list when every diagram renders. Raises MermaidUnavailable when
    Chromium or node_modules/mermaid is missing. The whole run is bounded by timeout_s: the browser
    is killed then, and the diagram in progress and those after it are reported as not checked.
    """
    if not diagrams:
        return []
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + timeout_s
    problems = []
    with open_page(timeout_s) as page:
        for n, d in enumerate(diagrams):
            try:
                result = browser.evaluate(
                    page,
                    "([text, n]) => window.mermaidCheck(text, n)",
                    [d.source, n],
                    deadline - time.monotonic(),
                )
            except (browser.BrowserTimeout, PlaywrightError) as e:
                why = (
                    f"mermaid did not finish within the {timeout_s:g} s limit"
                    if isinstance(e, browser.BrowserTimeout)
                    else f"chromium failed: {' '.join(str(e).split())}"
                )
                problems.append(f"{d.post}:{d.line}: {why}\n{_show(d.source)}")
                problems += [f"{x.post}:{x.line}: not checked ({why})" for x in diagrams[n + 1 :]]
                break
            if not result["ok"]:
                message = _locate(result["message"].strip(), d.source)
                problems.append(f"{d.post}:{d.line}: {message}\n{_show(d.source)}")
    return problems
