"""From woven body to finished post: glossary footnotes, diagram palette, §零 table, templates."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from .errors import BuildError
from .series import Series
from .source import Source

FENCE = re.compile(r"^(```+|~~~+)")
TERM = re.compile(r"\[\[([^\[\]\n]+)\]\]")
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^(#{2,3}) (.+?)\s*$")
MIN_VERSIONS = {"torch": "2.3", "triton": "2.2"}


@dataclass
class Prose:
    """Rewrites the prose of one post; remembers which glossary terms it has footnoted."""

    src: Source
    series: Series
    palette: dict
    footnotes: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def __call__(self, text: str, first_line: int) -> str:
        out: list[str] = []
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            ln = lines[i]
            fence = FENCE.match(ln)
            if not fence:
                out.append(self._terms(ln, first_line + i))
                i += 1
                continue
            j = i + 1
            while j < len(lines) and not lines[j].startswith(fence.group(1)):
                j += 1
            if j == len(lines):
                raise BuildError("fenced block is not closed", self.src.rel, first_line + i)
            lang = ln[len(fence.group(1)) :].strip()
            if not lang:
                raise BuildError(
                    "fenced block has no language (python, bash, text, mermaid...)",
                    self.src.rel,
                    first_line + i,
                )
            body = "\n".join(lines[i + 1 : j])
            if lang == "mermaid":
                body = self._mermaid(body, first_line + i)
            out += [ln, *body.split("\n"), lines[j]] if body else [ln, lines[j]]
            i = j + 1
        return "\n".join(out)

    def _mermaid(self, body: str, line: int) -> str:
        from .mermaid import decorate

        for k, dl in enumerate(body.split("\n"), 1):
            s = dl.strip()
            if s.startswith("%%{") or s.startswith("classDef "):
                raise BuildError(
                    "diagrams take init and classDef from templates/mermaid_palette.yaml only",
                    self.src.rel,
                    line + k,
                )
        return decorate(body, self.palette).rstrip()

    def _terms(self, ln: str, line: int) -> str:
        # glossary markers outside inline code
        spans = [(m.start(), m.end()) for m in INLINE_CODE.finditer(ln)]

        def repl(m: re.Match) -> str:
            if any(a <= m.start() < b for a, b in spans):
                return m.group(0)
            term = m.group(1).strip()
            entry = self.series.glossary.get(term)
            if entry is None:
                raise BuildError(
                    f"unknown glossary term {term!r} (see series.yaml)", self.src.rel, line
                )
            if term in self.seen:
                return term
            self.seen.add(term)
            post = self.series.post(entry["post"])
            n = len(self.footnotes) + 1
            url = post.url + (f"#{entry['anchor']}" if entry.get("anchor") else "")
            where = f"《{post.title}》" + (
                f"的“{entry['section']}”" if entry.get("section") else ""
            )
            self.footnotes.append(f"[^g{n}]: {term}：见本系列{where}（[链接]({url})）。")
            return f"{term}[^g{n}]"

        return TERM.sub(repl, ln)


def heading_anchor(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def outline(body: str) -> list[dict]:
    """Chapters (##) with their sections (###), skipping fenced code."""
    chapters: list[dict] = []
    in_fence = None
    for ln in body.split("\n"):
        f = FENCE.match(ln)
        if f:
            in_fence = None if in_fence and ln.startswith(in_fence) else (in_fence or f.group(1))
            continue
        if in_fence:
            continue
        m = HEADING.match(ln)
        if not m:
            continue
        item = {"title": m.group(2), "anchor": heading_anchor(m.group(2)), "sections": []}
        if m.group(1) == "##":
            chapters.append(item)
        elif chapters:
            chapters[-1]["sections"].append(item)
    return chapters


def environment(root: Path) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root / "templates")),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render_template(env: jinja2.Environment, name: str, **values) -> str:
    """Render one template; a missing variable names the template file and line."""
    try:
        return env.get_template(name).render(**values)
    except jinja2.UndefinedError as e:
        where, line = _template_frame(e, name)
        raise BuildError(f"template variable missing: {e.message}", f"templates/{where}", line)
    except jinja2.TemplateSyntaxError as e:
        raise BuildError(f"template syntax: {e.message}", f"templates/{name}", e.lineno)
    except jinja2.TemplateNotFound as e:
        raise BuildError(f"template not found: {e.name}", "templates")


def _template_frame(exc: BaseException, name: str) -> tuple[str, int | None]:
    """The innermost template (an included one, if the error is there) and its line."""
    tb, where, line = exc.__traceback__, name, None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.endswith(".j2"):
            where, line = Path(filename).name, tb.tb_lineno
        tb = tb.tb_next
    return where, line


def load_results(root: Path) -> dict[str, dict]:
    """Committed GPU results files, by name (h200.json -> 'h200')."""
    out = {}
    for p in sorted((root / "src_literate" / "results").glob("*.json")):
        try:
            out[p.stem] = json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise BuildError(f"results file is not JSON: {e.msg}", p.relative_to(root), e.lineno)
    return out


def post_values(
    src: Source, series: Series, body: str, footnotes: list[str], versions: dict, results: dict
) -> dict:
    """Everything the post template needs."""
    me = series.post(src.slug)
    nav = [
        {
            "title": p.title,
            "url": p.url,
            "current": p.slug == src.slug,
            "order": p.order,
            "slug": p.slug,
        }
        for p in series.posts
    ]
    gpu_runs = [
        {
            k: r.get("meta", {}).get(k, "?")
            for k in ("gpu", "torch", "triton", "transformers", "date")
        }
        for r in results.values()
    ]
    return {
        "meta": src.meta,
        "series": series.name,
        "order": me.order,
        "outline": outline(body),
        "body": body,
        "footnotes": footnotes,
        "versions": versions,
        "min_versions": {**MIN_VERSIONS, **(src.meta.get("min_versions") or {})},
        # a source's own min_versions are the oldest it ran on; the defaults are the spec's floor
        "min_versions_ran": bool(src.meta.get("min_versions")),
        "gpu_runs": gpu_runs,
        "nav": nav,
        "source": src.rel,
    }
