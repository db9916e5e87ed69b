"""From woven body to finished post: glossary footnotes, diagram palette, §零 table, templates."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from .errors import BuildError
from .markdown import INLINE_CODE, fences, headings, outline
from .series import Series
from .source import Source
from .values import load_json, read_text

MORE = "<!--more-->"
MD_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)\)")
TERM = re.compile(r"\[\[([^\[\]\n]+)\]\]")
MIN_VERSIONS = {"torch": "2.3", "triton": "2.2"}


@dataclass
class Prose:
    """Rewrites the prose of one post; remembers which glossary terms it has footnoted."""

    src: Source
    series: Series
    palette: dict
    footnotes: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    diagrams: list = field(default_factory=list)  # (mermaid.Diagram at its .pmd line, body)

    def check(self, src: Source) -> None:
        """Weave the prose once without outputs: its mistakes surface before any chunk runs."""
        from .weave import format_body

        format_body(src, [{"outputs": []} for _ in src.chunks], self)

    def __call__(self, text: str, first_line: int) -> str:
        lines = text.split("\n")
        blocks = {f.line - 1: f for f in fences(text)}
        out: list[str] = []
        i = 0
        while i < len(lines):
            fence = blocks.get(i)
            if fence is None:
                out.append(self._links(self._terms(lines[i], first_line + i)))
                i += 1
                continue
            if not fence.closed:
                raise BuildError("fenced block is not closed", self.src.rel, first_line + i)
            if not fence.lang:
                raise BuildError(
                    "fenced block has no language (python, bash, text, mermaid...)",
                    self.src.rel,
                    first_line + i,
                )
            body = lines[i + 1 : fence.end - 1]
            if fence.lang == "mermaid":
                body = self._mermaid(fence.body, first_line + i).split("\n")
            out += [lines[i], *body, lines[fence.end - 1]]
            i = fence.end
        return "\n".join(out)

    def _links(self, ln: str) -> str:
        """Links to series posts: our own posts by relative file, placeholder URLs as plain text."""
        spans = [(m.start(), m.end()) for m in INLINE_CODE.finditer(ln)]

        def repl(m: re.Match) -> str:
            if any(a <= m.start() < b for a, b in spans):
                return m.group(0)
            if m.group(2).startswith("repo:"):  # the code's repository (series.yaml), or plain text
                repo = self.series.repository
                if repo is None or repo.placeholder:
                    return m.group(1)
                path = m.group(2).removeprefix("repo:").lstrip("/")
                return f"[{m.group(1)}]({repo.url}{'/' + path if path else ''})"
            url, _, anchor = m.group(2).partition("#")
            post = self.series.by_url(url)
            if post is None:
                return m.group(0)
            link = post_link(post, anchor)
            return f"[{m.group(1)}]({link})" if link else m.group(1)

        return MD_LINK.sub(repl, ln)

    def _mermaid(self, body: str, line: int) -> str:
        from .mermaid import Diagram, decorate, lint

        for k, dl in enumerate(body.split("\n"), 1):
            s = dl.strip()
            if s.startswith("%%{") or s.startswith("classDef "):
                raise BuildError(
                    "diagrams take init and classDef from templates/mermaid_palette.yaml only",
                    self.src.rel,
                    line + k,
                )
        woven = decorate(body, self.palette)
        for problem in lint(woven, set(self.palette["classes"])):
            k, _, message = problem.removeprefix("line ").partition(" of the diagram: ")
            raise BuildError(message, self.src.rel, line + diagram_line(body, woven, int(k)))
        self.diagrams.append((Diagram(self.src.rel, line, woven), body))
        return woven.rstrip()

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
            link = post_link(post, entry.get("anchor") or "")
            where = f"《{post.title}》" + (
                f"的“{entry['section']}”" if entry.get("section") else ""
            )
            tail = f"（[链接]({link})）" if link else ""
            # a one-line gloss lets the footnote stand on its own while the sister post is unlinked
            gloss = entry.get("gloss", "").strip().rstrip("。")
            said = f"{gloss}。详见" if gloss else "见"
            self.footnotes.append(f"[^g{n}]: {term}：{said}本系列{where}{tail}。")
            return f"{term}[^g{n}]"

        return TERM.sub(repl, ln)


def diagram_line(body: str, woven: str, k: int) -> int:
    """The line of the author's diagram that line `k` of the woven one comes from (0: none)."""
    lines, target = body.split("\n"), woven.split("\n")[k - 1] if k else ""
    return next((n for n, ln in enumerate(lines, 1) if ln == target), 0)


def post_link(post, anchor: str = "") -> str | None:
    """How a post links to a series post: our posts by file name (GitHub and Hugo's link render
    hook both resolve it), earlier posts by their site URL, placeholders not at all."""
    if post.placeholder:
        return None
    base = f"{post.slug}.md" if post.source else post.url
    return base + (f"#{anchor}" if anchor else "")


def split_lede(body: str, rel: str) -> tuple[str, str]:
    """(the introduction before the first chapter, ending in the excerpt marker; the rest)."""
    first = next((h.line for h in headings(body) if h.level == 2), None)
    lines = body.split("\n")
    if first is None:
        raise BuildError("the post has no chapter (## heading)", rel)
    lede = "\n".join(lines[: first - 1]).strip("\n")
    if body.count(MORE) != 1 or MORE not in lede:
        raise BuildError(
            f"the introduction before the first chapter must end with one {MORE} line", rel
        )
    if not lede.split(MORE)[0].strip():
        raise BuildError(f"write an introduction before {MORE}", rel)
    if lede.split(MORE)[1].strip():
        raise BuildError(f"{MORE} must close the introduction (nothing after it before §一)", rel)
    return lede, "\n".join(lines[first - 1 :])


def environment(root: Path) -> jinja2.Environment:
    for path in sorted((root / "templates").glob("*.j2")):
        read_text(path, root)  # jinja2 would say 'utf-8 codec can't decode' without the file
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root / "templates")),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    # a JSON string is a valid YAML double-quoted scalar: safe for any title or description
    env.filters["yaml_str"] = lambda v: json.dumps(str(v), ensure_ascii=False)
    return env


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
    folder = root / "src_literate" / "results"
    for p in sorted(folder.iterdir()) if folder.is_dir() else []:
        if p.suffix == ".json":
            out[p.stem] = load_json(p, root)
        elif p.is_file():
            read_text(p, root)  # a text artifact: UTF-8, no NUL
    return out


def gpu_run_lines(results: dict, read: set) -> list[dict]:
    """The GPU runs whose files this post's code reads (the freeze's inputs), one line per setup:
    {gpu, torch, triton, transformers, date, last, files}: date the first and last day the files name
    ("a 至 b", for the reader), last the latest real day (None when no file names one)."""
    runs: dict[tuple, list[str]] = {}
    files: dict[tuple, int] = {}
    for name, r in sorted(results.items()):
        meta = r.get("meta") if isinstance(r, dict) else None
        if f"{name}.json" not in read or not isinstance(meta, dict) or not meta.get("gpu"):
            continue
        # the scanner's JSON uses "gpu" for its cost model ("h200"): the device is then "gpu_name"
        device = meta.get("gpu_name") or meta["gpu"]
        key = (("gpu", str(device)),) + tuple((k, str(meta.get(k, "?"))) for k in ("torch", "triton", "transformers"))
        # a merged file's date is a range ("2026-12-03 to 2026-12-04"): keep every day it names
        days = re.findall(r"\d{4}-\d{2}-\d{2}", str(meta.get("date", ""))) or ["?"]
        runs.setdefault(key, []).extend(days)
        files[key] = files.get(key, 0) + 1
    # the setup most files come from first: the template names the others as side runs
    order = sorted(runs, key=lambda k: -files[k])
    return [
        {
            **dict(k),
            "date": " 至 ".join(sorted({min(runs[k]), max(runs[k])})),
            "last": max((d for d in runs[k] if d != "?"), default=None),
            "files": files[k],
        }
        for k in order
    ]


def post_values(
    src: Source,
    series: Series,
    body: str,
    footnotes: list[str],
    versions: dict,
    results: dict,
    freeze_results: dict,
) -> dict:
    """Everything the post template needs."""
    me = series.post(src.slug)
    lede, chapters = split_lede(body, src.rel)
    nav = [
        {
            "title": p.title,
            "link": post_link(p),
            "current": p.slug == src.slug,
            "order": p.order,
            "slug": p.slug,
        }
        for p in series.posts
    ]
    gpu_runs = gpu_run_lines(results, set(freeze_results))
    return {
        "meta": src.meta,
        "series": series.name,
        "order": me.order,
        "outline": outline(chapters),
        "lede": lede,
        "body": chapters,
        "footnotes": footnotes,
        "versions": versions,
        "min_versions": {**MIN_VERSIONS, **(src.meta.get("min_versions") or {})},
        # a source's own min_versions are the oldest it ran on; the defaults are the spec's floor
        "min_versions_ran": bool(src.meta.get("min_versions")),
        "gpu_runs": gpu_runs,
        "nav": nav,
    }
