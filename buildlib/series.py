"""The series file: every post of 训推加速 in order, and the glossary of terms to sister posts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError
from .values import check_slug, load_yaml, read_text

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
class Repository:
    url: str  # the code's public repository, linked from the posts as `[text](repo:path)`
    placeholder: bool = False  # a guess: posts show the text without a link


@dataclass
class Series:
    name: str
    posts: list[SeriesPost]
    glossary: dict[str, dict]
    repository: Repository | None = None

    def post(self, slug: str) -> SeriesPost | None:
        return next((p for p in self.posts if p.slug == slug), None)

    def by_url(self, url: str) -> SeriesPost | None:
        """The series post at a site URL (with or without the trailing slash)."""
        want = url.rstrip("/")
        return next((p for p in self.posts if p.url.rstrip("/") == want), None)


POST_KEYS = {"slug", "title", "url", "source", "placeholder"}
GLOSSARY_KEYS = {"post", "section", "anchor", "gloss"}
REPOSITORY_KEYS = {"url", "placeholder"}
SOURCE_RE = re.compile(r"src_literate/[\w.-]+\.pmd\Z")


def load_series(root: Path) -> Series:
    """Read and validate `src_literate/series.yaml`: every value's type, every slug."""
    text = read_text(root / SERIES_FILE, root)
    data = load_yaml(text, SERIES_FILE)
    lines = text.split("\n")

    def fail(message: str, needle: str | None = None, last: bool = False):
        found = [k for k, ln in enumerate(lines, 1) if needle and needle in ln]
        raise BuildError(message, SERIES_FILE, (found[-1] if last else found[0]) if found else None)

    if not isinstance(data, dict) or not isinstance(data.get("posts"), list):
        fail("needs a 'posts' list")
    if not isinstance(data.get("name", ""), str):
        fail("name must be a string", "name:")
    posts = []
    for i, entry in enumerate(data["posts"], 1):
        if not isinstance(entry, dict) or "slug" not in entry or "url" not in entry:
            fail(f"post #{i} needs slug and url")
        slug = entry["slug"]
        needle = f"slug: {slug}"
        unknown = sorted(str(k) for k in set(entry) - POST_KEYS)
        if unknown:
            fail(
                f"post {slug!r}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(POST_KEYS))})",
                needle,
            )
        check_slug(
            slug, SERIES_FILE, next((k for k, ln in enumerate(lines, 1) if needle in ln), None)
        )
        if slug in (p.slug for p in posts):
            fail(f"slug {slug!r} is listed twice", needle, last=True)
        url, title, source = entry["url"], entry.get("title"), entry.get("source")
        if not isinstance(url, str) or not re.match(r"(/|https?://)\S*\Z", url):
            fail(f"post {slug!r}: url must be a site path (/posts/...) or an http(s) URL", needle)
        if "title" not in entry and "source" not in entry:
            fail(f"post {slug!r} needs a title or a source", needle)
        if title is not None and (not isinstance(title, str) or not title.strip()):
            fail(f"post {slug!r}: title must be text", needle)
        if source is not None and (not isinstance(source, str) or not SOURCE_RE.match(source)):
            fail(f"post {slug!r}: source must be src_literate/<name>.pmd", needle)
        placeholder = entry.get("placeholder", False)
        if not isinstance(placeholder, bool) or (placeholder and source):
            fail(f"post {slug!r}: placeholder is true or false, and never for our posts", needle)
        posts.append(SeriesPost(i, slug, title, url, source, placeholder))
    slugs = [p.slug for p in posts]
    glossary = data.get("glossary") or {}
    if not isinstance(glossary, dict):
        fail("glossary must be a mapping of term to {post, section, anchor, gloss}", "glossary:")
    for term, entry in glossary.items():
        if not isinstance(term, str) or not isinstance(entry, dict):
            fail(f"glossary term {term!r} must map to {{post, section, anchor, gloss}}", f"{term}:")
        if entry.get("post") not in slugs:
            fail(f"glossary term {term!r} points to no post of the series", f"{term}:")
        bad = [k for k in entry if k not in GLOSSARY_KEYS or not isinstance(entry[k], str)]
        if bad:
            fail(
                f"glossary term {term!r}: {bad[0]!r} must be one of post, section, anchor, gloss, as text",
                f"{term}:",
            )
    repository = None
    if "repository" in data:
        repo = data["repository"]
        if not isinstance(repo, dict) or set(repo) - REPOSITORY_KEYS or "url" not in repo:
            fail("repository must be a mapping {url, placeholder}", "repository:")
        if not isinstance(repo["url"], str) or not re.match(r"https://\S+\Z", repo["url"]):
            fail("repository: url must be an https URL", "repository:")
        if not isinstance(repo.get("placeholder", False), bool):
            fail("repository: placeholder is true or false", "repository:")
        repository = Repository(repo["url"].rstrip("/"), repo.get("placeholder", False))
    return Series(name=data.get("name", ""), posts=posts, glossary=glossary, repository=repository)
