"""The whole build in memory: sources -> package files, posts and README index; then one commit to disk."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError
from .fsutil import commit_tree, write_atomic
from .render import Prose, environment, load_results, post_values, render_template
from .series import Series, load_series
from .source import Source, discover_sources, parse_source
from .tangle import tangle
from .weave import FREEZE_DIR, execute, format_body, require_frozen, stage_package

PALETTE_FILE = "templates/mermaid_palette.yaml"
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
) -> dict[str, dict[str, str]]:
    """Compute every output without touching generated/, posts/, the freeze or README.md.

    With `execute_stale` (the `posts` command) a source whose frozen outputs no longer match its
    inputs is executed again, as is every source whose slug is in `refresh` (an empty set: all);
    without it (the `check` command) nothing is executed and a stale freeze is an error.
    """
    from .mermaid import load_palette

    series, sources = load(project)
    package = tangle(sources)
    palette = load_palette(project.root / PALETTE_FILE)
    env = environment(project.root)
    results = load_results(project.root)
    posts: dict[str, str] = {}
    freezes: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="qwen3-fusion-stage-") as tmp:
        stage = Path(tmp)
        stage_package(package, stage)
        for src in sources:
            if execute_stale:
                again = refresh is not None and (not refresh or src.slug in refresh)
                records, freeze, _ = execute(
                    src, project.root, package, stage, refresh=again, progress=progress
                )
            else:
                records, freeze = require_frozen(src, project.root, package)
            freezes[f"{src.slug}.json"] = freeze.to_text()
            prose = Prose(src, series, palette)
            body = format_body(src, records, prose)
            inputs = freeze.inputs
            values = post_values(
                src, series, body, prose.footnotes, inputs["versions"], results, inputs["results"]
            )
            posts[f"{src.slug}.md"] = render_template(env, "post.md.j2", **values)
    readme = readme_text(project, env, series)
    return {
        "generated": package,
        "posts": posts,
        "freeze": freezes,
        "readme": {"README.md": readme},
    }


def readme_text(project: Project, env, series: Series) -> str:
    """README.md with its posts index regenerated between the markers."""
    try:
        text = project.readme.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BuildError("README.md is missing", "README.md") from None
    if INDEX_START not in text or INDEX_END not in text:
        raise BuildError(
            f"README.md lacks the index markers {INDEX_START} / {INDEX_END}", "README.md"
        )
    ours = [p for p in series.posts if p.source]
    table = render_template(env, "readme_index.md.j2", posts=ours)
    head, rest = text.split(INDEX_START, 1)
    _, tail = rest.split(INDEX_END, 1)
    return f"{head}{INDEX_START}\n{table.strip()}\n{INDEX_END}{tail}"


def write_package(project: Project, package: dict[str, str]) -> list[str]:
    return commit_tree(project.generated, package, (".py",))


def write_outputs(project: Project, outputs: dict[str, dict[str, str]]) -> list[str]:
    """Write everything computed by build_all; each file goes through a temporary file."""
    changed = [f"generated/{p}" for p in write_package(project, outputs["generated"])]
    changed += [f"posts/{p}" for p in commit_tree(project.posts, outputs["posts"], (".md",))]
    freeze_dir = project.root / FREEZE_DIR
    changed += [f"{FREEZE_DIR}/{p}" for p in commit_tree(freeze_dir, outputs["freeze"], (".json",))]
    if write_atomic(project.readme, outputs["readme"]["README.md"]):
        changed.append("README.md")
    return changed
