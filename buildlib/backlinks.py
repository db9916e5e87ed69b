"""The series' backlinks (spec §6.3): one marked "相关文章" section, kept the same in every post."""

from __future__ import annotations

from pathlib import Path

from .errors import BuildError
from .fsutil import write_atomic
from .pipeline import Project, load
from .render import environment, render_template

START, END = "<!-- 训推加速:related:start -->", "<!-- 训推加速:related:end -->"


def related_section(project: Project, current: str | None) -> str:
    """The marked section listing the whole series, with `current` (a slug) in bold."""
    series, _ = load(project)
    nav = [
        {
            "title": p.title,
            # earlier posts live on the site: link our posts by URL, placeholders not at all
            "link": None if p.placeholder else p.url,
            "current": p.slug == current,
            "order": p.order,
            "slug": p.slug,
        }
        for p in series.posts
    ]
    body = render_template(environment(project.root), "related.md.j2", series=series.name, nav=nav)
    return f"{START}\n{body.strip()}\n{END}\n"


def rewrite_blog(project: Project, blog: Path) -> list[Path]:
    """Rewrite only the marked section of each earlier post found in `blog` as <slug>.md."""
    if not blog.is_dir():
        raise BuildError("not a directory", blog)
    series, _ = load(project)
    updates: list[tuple[Path, str]] = []
    for post in series.posts:
        if post.source:
            continue  # our own posts carry the section from their template
        path = blog / f"{post.slug}.md"
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
            raise BuildError(f"needs exactly one {START} ... {END} pair", path)
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        updates.append((path, head + related_section(project, post.slug).rstrip("\n") + tail))
    # every file was read and checked before the first one is written
    return [path for path, new in updates if write_atomic(path, new)]
