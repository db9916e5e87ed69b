"""`python build.py preview`: HTML pages of the woven posts, for reading them as a blog would show them."""

from __future__ import annotations

from pathlib import Path

from .errors import BuildError
from .fsutil import write_atomic
from .pipeline import Project, load


def write_previews(project: Project, slug: str | None = None) -> list[Path]:
    """Write preview/<slug>.html for each post (or one) from posts/<slug>.md; return the paths."""
    _, sources = load(project)
    chosen = [s for s in sources if slug in (None, s.slug)]
    if not chosen:
        known = ", ".join(s.slug for s in sources)
        raise BuildError(f"no post with slug {slug!r} (posts: {known})", "src_literate/series.yaml")
    from .preview import render_html

    paths = []
    for src in chosen:
        md = project.posts / f"{src.slug}.md"
        if not md.exists():
            raise BuildError(
                "not built yet: run `python build.py posts`", md.relative_to(project.root)
            )
        out = project.root / "preview" / f"{src.slug}.html"
        write_atomic(out, render_html(md.read_text(encoding="utf-8"), src.meta["title"]))
        paths.append(out)
    return paths
