"""The build's one reading of Markdown: front matter, fenced blocks, headings and their anchors.

Everything that needs to know where code is, where a heading is or what a heading's anchor
will be goes through this module, which parses with markdown-it-py (CommonMark, as GitHub
renders): a `#` comment inside a code block is never a heading, and a fence inside a list item
is still a fence.

Anchors follow GitHub's rules: the heading's text (inline markup removed) in lower case, every
character that is not a letter, mark, number, connector punctuation, space or hyphen dropped,
spaces turned into hyphens, and `-1`, `-2`, ... appended to repeats. In MkDocs,
`pymdownx.slugs.slugify(case="lower")` gives the same anchors.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from markdown_it import MarkdownIt

FRONT_MATTER_FENCE = "---"


def info_lang(info: str) -> str:
    """A fence's language: its info string's first word, up to a space, comma or brace."""
    return re.split(r"[\s,{]", info.strip(), maxsplit=1)[0] if info.strip() else ""


@dataclass(frozen=True)
class Fence:
    """A fenced code block; lines are 1-based lines of the text it was found in."""

    line: int  # the opening fence
    end: int  # the closing fence (the last line of the text when the block is not closed)
    info: str  # everything after the opening marker
    body: str
    closed: bool
    marker: str = "```"  # the opening fence's backticks or tildes

    @property
    def lang(self) -> str:
        return info_lang(self.info)


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str  # inline markup removed, as GitHub derives the anchor from it
    anchor: str


@functools.lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def split_front_matter(text: str) -> tuple[str | None, int]:
    """(the YAML between the opening and closing `---`, index of the first body line).

    (None, 0) when the text does not start with `---`; ValueError when it is not closed.
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != FRONT_MATTER_FENCE:
        return None, 0
    for i in range(1, len(lines)):
        if lines[i].strip() == FRONT_MATTER_FENCE:
            return "\n".join(lines[1:i]), i + 1
    raise ValueError("front matter is not closed by '---'")


@functools.lru_cache(maxsize=16)
def _tokens(text: str) -> tuple:
    """Tokens of the text with any front matter blanked (line numbers kept).

    Cached: a check asks for the fences, headings and prose of one post several times.
    The tokens are only read, never changed.
    """
    try:
        raw, first_body = split_front_matter(text)
    except ValueError:
        raw, first_body = None, 0
    if raw is not None:
        text = "\n" * first_body + "\n".join(text.split("\n")[first_body:])
    return tuple(parser().parse(text))


def fences(text: str) -> list[Fence]:
    """Every fenced code block, at any depth (list items, block quotes), in order."""
    lines = text.split("\n")
    out = []
    for tok in _tokens(text):
        if tok.type != "fence" or tok.map is None:
            continue
        first, after = tok.map
        last = lines[after - 1] if after - 1 < len(lines) else ""
        marker = tok.markup
        stripped = last.strip()
        closed = (
            after - first >= 2
            and stripped.startswith(marker[0] * len(marker))
            and set(stripped) == {marker[0]}
        )
        out.append(
            Fence(
                line=first + 1,
                end=after,
                info=tok.info.strip(),
                body=tok.content.rstrip("\n"),
                closed=closed,
                marker=marker,
            )
        )
    return out


def code_spans(text: str) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of every fenced or indented code block."""
    spans = []
    for tok in _tokens(text):
        if tok.type in ("fence", "code_block") and tok.map is not None:
            spans.append((tok.map[0] + 1, tok.map[1]))
    return spans


def github_slug(text: str) -> str:
    """GitHub's anchor for a heading's text (without the repeat suffix)."""
    kept = []
    for ch in text.strip().lower():
        cat = unicodedata.category(ch)
        if ch in " -" or cat[0] in "LMN" or cat == "Pc":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def _inline_text(tok) -> str:
    parts = []
    for child in tok.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def headings(text: str) -> list[Heading]:
    """ATX and setext headings outside code, with unique GitHub anchors."""
    toks = _tokens(text)
    out: list[Heading] = []
    counts: dict[str, int] = {}
    for k, tok in enumerate(toks):
        if tok.type != "heading_open":
            continue
        title = _inline_text(toks[k + 1])
        base = github_slug(title)
        n = counts.get(base, 0)
        counts[base] = n + 1
        anchor = base if n == 0 else f"{base}-{n}"
        out.append(Heading(tok.map[0] + 1, int(tok.tag[1]), title.strip(), anchor))
    return out


def outline(text: str) -> list[dict]:
    """Chapters (##) with their sections (###)."""
    chapters: list[dict] = []
    for h in headings(text):
        item = {"title": h.text, "anchor": h.anchor, "sections": []}
        if h.level == 2:
            chapters.append(item)
        elif h.level == 3 and chapters:
            chapters[-1]["sections"].append(item)
    return chapters


INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


def prose_lines(text: str) -> list[str]:
    """The text's lines with code blocks blanked and inline code removed (line numbers kept)."""
    lines = text.split("\n")
    for first, last in code_spans(text):
        for k in range(first - 1, min(last, len(lines))):
            lines[k] = ""
    return [INLINE_CODE.sub(" ", ln) for ln in lines]
