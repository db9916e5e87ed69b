"""The series file: every post of 训推加速 in order, and the glossary of terms to sister posts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from .errors import BuildError

SERIES_FILE = "src_literate/series.yaml"


@dataclass
class SeriesPost:
    order: int
    slug: str
    title: str | None
    url: str
    source: str | None
    placeholder: bool = False  # the URL is a guess: render the title without a link


@dataclass
class Series:
    name: str
    posts: list[SeriesPost]
    glossary: dict[str, dict]

    def post(self, slug: str) -> SeriesPost | None:
        return next((p for p in self.posts if p.slug == slug), None)

    def by_url(self, url: str) -> SeriesPost | None:
        """The series post at a site URL (with or without the trailing slash)."""
        want = url.rstrip("/")
        return next((p for p in self.posts if p.url.rstrip("/") == want), None)


def load_series(root: Path) -> Series:
    """Read and validate `src_literate/series.yaml`."""
    path = root / SERIES_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError("series file is missing", SERIES_FILE) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise BuildError(f"not valid YAML: {e}", SERIES_FILE, mark.line + 1 if mark else None)
    if not isinstance(data, dict) or not isinstance(data.get("posts"), list):
        raise BuildError("needs a 'posts' list", SERIES_FILE)
    posts = []
    for i, entry in enumerate(data["posts"], 1):
        if not isinstance(entry, dict) or "slug" not in entry or "url" not in entry:
            raise BuildError(f"post #{i} needs slug and url", SERIES_FILE)
        if "title" not in entry and "source" not in entry:
            raise BuildError(f"post {entry['slug']!r} needs a title or a source", SERIES_FILE)
        placeholder = entry.get("placeholder", False)
        if not isinstance(placeholder, bool) or (placeholder and entry.get("source")):
            raise BuildError(
                f"post {entry['slug']!r}: placeholder is true or false, and never for our posts",
                SERIES_FILE,
            )
        posts.append(
            SeriesPost(
                i, entry["slug"], entry.get("title"), entry["url"], entry.get("source"), placeholder
            )
        )
    slugs = [p.slug for p in posts]
    glossary = data.get("glossary") or {}
    for term, entry in glossary.items():
        if not isinstance(entry, dict) or entry.get("post") not in slugs:
            raise BuildError(f"glossary term {term!r} points to no post of the series", SERIES_FILE)
    return Series(name=data.get("name", ""), posts=posts, glossary=glossary)
