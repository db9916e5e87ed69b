"""`python build.py preview`: the posts as a reader of the Hugo site sees them.

The preview is the Hugo site of sites/hugo/ itself (same layouts, render hooks and CSS), built with
sites/hugo/preview.toml on top so that it opens from disk: relative links and one file per post,
preview/posts/<slug>.html. A defect of the published page is a defect of the preview.
"""

from __future__ import annotations

from pathlib import Path

from .errors import BuildError
from .pipeline import Project, load
from .sites import build_site, post_page


def write_previews(project: Project, slug: str | None = None) -> list[Path]:
    """Build the Hugo site into preview/; return the pages of the posts (or of the one named)."""
    _, sources = load(project)
    chosen = [s for s in sources if slug in (None, s.slug)]
    if not chosen:
        known = ", ".join(s.slug for s in sources)
        raise BuildError(f"no post with slug {slug!r} (posts: {known})", "src_literate/series.yaml")
    for src in chosen:
        md = project.posts / f"{src.slug}.md"
        if not md.exists():
            raise BuildError(
                "not built yet: run `python build.py posts`", md.relative_to(project.root)
            )
    public = build_site(
        "hugo",
        project.root / ".cache" / "preview-hugo",
        project.root,
        preview=True,
        public=project.root / "preview",
    )
    return [post_page("hugo", public, src.slug, preview=True) for src in chosen]
