"""The whole build in memory: sources -> package files, posts and README index; then one commit to disk."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError
from .freeze import FREEZE_DIR
from .fsutil import Tree, commit
from .render import Prose, diagram_line, environment, load_results, post_values, render_template
from .series import SOURCE_RE, Series, load_series
from .source import Source, discover_sources, parse_source
from .tangle import tangle
from .values import read_text
from .weave import execute, format_body, require_frozen, stage_package

PALETTE_FILE = "templates/mermaid_palette.yaml"
# text that every file the build writes contains: only such files are ever removed
BANNER_MARK = "# GENERATED FILE - DO NOT EDIT."
# every post the build writes has the series key in its front matter (posts/ holds no hand-written
# page: a file there without it stops the build instead of being removed)
POST_MARK = "\nseries: ["
FREEZE_MARK = '"outputs": ['

INDEX_START, INDEX_END = "<!-- posts:start -->", "<!-- posts:end -->"


@dataclass
class Project:
    """Where a build reads and writes; tests point it at a copy."""

    root: Path

    @property
    def generated(self) -> Path:
        return self.root / "generated"

    @property
    def posts(self) -> Path:
        return self.root / "posts"

    @property
    def readme(self) -> Path:
        return self.root / "README.md"


def load(project: Project) -> tuple[Series, list[Source]]:
    """Parse the series file and every source, and tie them together."""
    series = load_series(project.root)
    sources = [parse_source(p, project.root) for p in discover_sources(project.root)]
    for src in sources:
        if not SOURCE_RE.match(src.rel):
            raise BuildError(
                "name a source with letters, digits, '.', '_' and '-' only (it is linked from"
                " README and named in series.yaml)",
                src.rel,
            )
        entry = series.post(src.slug)
        if entry is None:
            raise BuildError(f"slug {src.slug!r} is not in src_literate/series.yaml", src.rel, 1)
        if entry.source and entry.source != src.rel:
            raise BuildError(f"series.yaml gives {entry.source} for slug {src.slug!r}", src.rel, 1)
        if len(src.meta["title"]) > 30:
            raise BuildError(
                f"title is {len(src.meta['title'])} characters; keep it to 30", src.rel, 1
            )
        entry.title = src.meta["title"]
        entry.source = src.rel
    for p in series.posts:
        if p.source and p.title is None:
            raise BuildError(
                f"series post {p.slug!r} names {p.source}, which does not exist",
                "src_literate/series.yaml",
            )
    return series, sources


def tangle_project(project: Project) -> dict[str, str]:
    _, sources = load(project)
    return tangle(sources)


def build_all(
    project: Project,
    execute_stale: bool = False,
    refresh: set[str] | None = None,
    progress=None,
    problems: list[str] | None = None,
) -> dict:
    """Compute every output without touching generated/, posts/, the freeze or README.md.

    With `execute_stale` (the `posts` command) a source whose frozen outputs no longer match its
    inputs is executed again, as is every source whose slug is in `refresh` (an empty set: all);
    without it (the `check` command) nothing is executed and a stale freeze is an error. Given a
    `problems` list (check), a source's error is added to it and the other sources go on.
    """
    from .mermaid import load_palette

    series, sources = load(project)
    unknown = sorted((refresh or set()) - {s.slug for s in sources})
    if unknown:
        slugs = ", ".join(s.slug for s in sources)
        raise BuildError(f"--refresh {unknown[0]}: no source has this slug (slugs: {slugs})")
    package = tangle(sources)
    read_text(project.root / PALETTE_FILE, project.root)  # not UTF-8: named with its line
    try:
        palette = load_palette(project.root / PALETTE_FILE)
    except ValueError as e:
        raise BuildError(
            str(e).removeprefix(f"{project.root / PALETTE_FILE}: "), PALETTE_FILE
        ) from None
    env = environment(project.root)
    results = load_results(project.root)
    out: dict = {"generated": package, "posts": {}, "freeze": {}, "failed": set(), "diagrams": []}

    def each(step) -> None:
        """Run `step` on every source not yet failed; in check mode an error fails that one only."""
        for src in sources:
            if src.slug in out["failed"]:
                continue
            try:
                step(src)
            except BuildError as e:
                if problems is None:
                    raise
                problems.append(str(e))
                out["failed"].add(src.slug)

    # prose, glossary and diagram mistakes of every source before any chunk runs
    each(lambda src: Prose(src, series, palette).check(src))

    def one(src: Source, stage: Path) -> None:
        if execute_stale:
            again = refresh is not None and (not refresh or src.slug in refresh)
            records, freeze, _ = execute(
                src, project.root, package, stage, refresh=again, progress=progress
            )
        else:
            records, freeze = require_frozen(src, project.root, package)
        prose = Prose(src, series, palette)
        body = format_body(src, records, prose)
        versions, read = freeze.inputs["versions"], freeze.results_read()
        values = post_values(src, series, body, prose.footnotes, versions, results, read)
        check_date(src, values["gpu_runs"])
        out["freeze"][f"{src.slug}.json"] = freeze.to_text()
        out["posts"][f"{src.slug}.md"] = render_template(env, "post.md.j2", **values)
        out["diagrams"] += prose.diagrams

    with tempfile.TemporaryDirectory(prefix="qwen3-fusion-stage-") as tmp:
        stage_package(package, Path(tmp), project.root)
        each(lambda src: one(src, Path(tmp)))
    out["readme"] = {"README.md": readme_text(project, env, series)}
    return out


def readme_text(project: Project, env, series: Series) -> str:
    """README.md with its posts index regenerated between the markers."""
    text = read_text(project.readme, project.root)
    if INDEX_START not in text or INDEX_END not in text:
        raise BuildError(
            f"README.md lacks the index markers {INDEX_START} / {INDEX_END}", "README.md"
        )
    ours = [p for p in series.posts if p.source]
    table = render_template(env, "readme_index.md.j2", posts=ours)
    head, rest = text.split(INDEX_START, 1)
    _, tail = rest.split(INDEX_END, 1)
    return f"{head}{INDEX_START}\n{table.strip()}\n{INDEX_END}{tail}"


def _trees(project: Project, outputs: dict[str, dict[str, str]]) -> list[Tree]:
    return [
        Tree(project.generated, outputs["generated"], ".py", BANNER_MARK),
        Tree(project.posts, outputs["posts"], ".md", POST_MARK),
        Tree(project.root / FREEZE_DIR, outputs["freeze"], ".json", FREEZE_MARK),
    ]


def write_package(project: Project, package: dict[str, str]) -> list[str]:
    return commit(
        project.root, _trees(project, {"generated": package, "posts": {}, "freeze": {}})[:1]
    )


def write_outputs(project: Project, outputs: dict[str, dict[str, str]]) -> list[str]:
    """Write everything build_all computed as one commit ('wrote <path>', 'removed <path>')."""
    readme = {project.readme: outputs["readme"]["README.md"]}
    return commit(project.root, _trees(project, outputs), readme)


def verify_diagrams(outputs: dict, warn=print) -> None:
    """Mermaid's own parser on every diagram, before `posts` writes: an error at its .pmd line."""
    from .mermaid import MermaidUnavailable, render_all

    found = outputs["diagrams"]  # (Diagram located in its source, the author's body)
    try:
        problems = render_all([d for d, _ in found])
    except MermaidUnavailable as e:
        warn(f"warning: diagrams not checked by mermaid: {e}")
        return
    if not problems:
        return
    first, *rest = problems[0].split("\n")
    diagram, body = next((d, b) for d, b in found if first.startswith(f"{d.post}:{d.line}: "))
    message = first.removeprefix(f"{diagram.post}:{diagram.line}: ")
    line = diagram.line
    m = re.search(r" \[line (\d+) of the diagram below\]", message)
    if m:
        line += diagram_line(body, diagram.source, int(m.group(1)))
        message = re.sub(r" on line \d+:?$", "", message.replace(m.group(0), ""))
    # mermaid's "Expecting ..., got ..." line, shortened: the rest is the listing of the diagram
    expecting = next((r.strip() for r in rest if r.startswith("Expecting ")), "")
    if expecting:
        message += ": " + (expecting if len(expecting) < 160 else f"{expecting[:150]}...")
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    raise BuildError(f"mermaid cannot draw this diagram: {message}{more}", diagram.post, line)


def check_date(src: Source, gpu_runs: list[dict]) -> None:
    """A post is not dated before the newest GPU result it reads: its date says when its figures held."""
    days = [run["last"] for run in gpu_runs if run["last"]]
    if days and max(days) > src.meta["date"]:
        message = f"date {src.meta['date']} is before the newest GPU result the post reads ({max(days)})"
        raise BuildError(message, src.rel, src.meta_lines["date"])
