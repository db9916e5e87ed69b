"""The sites of sites/ built by the real, pinned tools and read in headless Chromium, on a desktop and a phone.

For Hugo, MkDocs-Material, Hexo and `python build.py preview` (the Hugo site opened from disk), every
post page must show what its Markdown holds: each mermaid fence drawn, each formula typeset by KaTeX,
each folded block a closed <details> holding its code, one title, every in-page anchor and every
link to the sister post resolved, no raw `$$` or ``` left. At 390 px (a phone) no page scrolls
sideways, display math scrolls inside its own box, diagram text is at least 10 px, charts have at most
8 labels. A tool that is not installed skips its site here and fails on CI, which installs them.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from buildlib import browser, sites

REPO = Path(__file__).resolve().parent.parent
AUDIT = (Path(__file__).parent / "page_audit.js").read_text(encoding="utf-8")
POSTS = sorted(p.stem for p in (REPO / "posts").glob("*.md"))
SITES = [*sites.TOOLS, "preview"]
DESKTOP, PHONE = 1280, 390


def require(reason):
    """Skip for a missing install step; fail on CI, which installs everything."""
    if reason:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)


def _walk(tokens):
    for tok in tokens:
        yield tok
        yield from _walk(tok.children or [])


@functools.cache
def expected(slug: str) -> dict:
    """What the post's Markdown asks a site to show, counted by a CommonMark parser."""
    text = (REPO / "posts" / f"{slug}.md").read_text(encoding="utf-8")
    md = MarkdownIt("commonmark", {"html": True}).enable("table").use(footnote_plugin)
    tokens = list(_walk(md.use(dollarmath_plugin, double_inline=True).parse(text)))
    hrefs = [t.attrGet("href") or "" for t in tokens if t.type == "link_open"]
    html = "".join(t.content for t in tokens if t.type in ("html_block", "html_inline"))
    return {
        "mermaid": sum(t.type == "fence" and t.info.startswith("mermaid") for t in tokens),
        "math": sum(t.type.startswith("math_") for t in tokens),
        "details": html.count("<details>") + html.count("<details "),  # a fold may carry a class
        # folded code, as opposed to a folded passage of prose ("how it works")
        "details_code": sum("```" in part.split("</details>")[0] for part in text.split("<details>")[1:]),
        "anchors": sum(h.startswith("#") for h in hrefs),
        "footnotes": sum(t.type == "footnote_ref" for t in tokens),
        "sister_links": sum(h.split("#")[0] in {f"{p}.md" for p in POSTS} for h in hrefs),
    }


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def chromium():
    require(browser.missing())
    with browser.launch(60) as b:
        yield b


@pytest.fixture(scope="module", params=SITES)
def site(request, tmp_path_factory, chromium):
    """(tool, its version, {(slug, width): audit of the page}) for one built site."""
    name = request.param
    tool = "hugo" if name == "preview" else name
    require(sites.missing(tool))
    out = tmp_path_factory.mktemp(name)
    public = sites.build_site(tool, out, preview=name == "preview")
    server = None
    if name == "preview":
        url = {s: sites.post_page(tool, public, s, preview=True).as_uri() for s in POSTS}
    else:
        handler = functools.partial(_Quiet, directory=str(public))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = {s: f"http://127.0.0.1:{server.server_port}/posts/{s}/" for s in POSTS}
    audits, failed = {}, []
    try:
        for width in (DESKTOP, PHONE):
            page = chromium.new_page(viewport={"width": width, "height": 900})
            page.on("requestfailed", lambda r: failed.append((r.url, r.failure)))
            for slug in POSTS:
                page.goto(url[slug])
                page.wait_for_function(
                    "['done', 'failed'].includes(document.documentElement.dataset.diagrams)"
                    " || !document.querySelector('.diagram-mermaid')",
                    timeout=30_000,
                )
                audits[slug, width] = page.evaluate(AUDIT)
            page.close()
    finally:
        if server:
            server.shutdown()
    version = sites.installed(tool)
    print(f"\n{name} ({sites.PACKAGE[tool]} {version}):")
    for (slug, width), a in audits.items():
        keys = ("mermaidSvgs", "katex", "details", "anchorsResolved", "footnoteRefs")
        print(f"  {slug} @{width}px: " + ", ".join(f"{k}={a[k]}" for k in keys))
    return name, failed, audits


def test_the_tools_are_the_pinned_versions():
    for tool in sites.TOOLS:
        require(sites.missing(tool))
        assert sites.installed(tool) == sites.pinned(tool)


def test_nothing_is_fetched_from_a_network(site):
    name, failed, _ = site
    # the browser asks for the site's favicon on its own and nothing waits for it: moving on to the
    # next page can abort it on a busy machine (a missing file is a 404 response, not a failure)
    real = [f"{url} ({why})" for url, why in failed if not url.endswith("/favicon.png")]
    assert not real, f"{name}: requests that failed (offline, or missing files): {real[:5]}"


def test_every_post_shows_its_diagrams_math_and_folded_code(site):
    name, _, audits = site
    for slug in POSTS:
        a, want = audits[slug, DESKTOP], expected(slug)
        where = f"{name}: {slug}"
        assert a["h1"] == 1, f"{where}: {a['h1']} <h1> (the theme prints the one title)"
        assert a["mermaidSvgs"] == want["mermaid"] and a["mermaidPending"] == 0, where
        assert a["katex"] == want["math"] and a["katexErrors"] == 0, where
        assert a["details"] == want["details"], where
        assert a["detailsWithCode"] == want["details_code"], where
        assert a["detailsOpen"] == 0, f"{where}: folded code shows unfolded"
        assert a["rawMath"] == 0 and a["rawFence"] == 0, f"{where}: raw $$ or ``` in the text"


def test_anchors_and_footnotes_resolve(site):
    name, _, audits = site
    for slug in POSTS:
        a, want = audits[slug, DESKTOP], expected(slug)
        assert a["anchors"] >= want["anchors"], f"{name}: {slug}: in-page links lost"
        assert a["anchorsResolved"] == a["anchors"], f"{name}: {slug}: {a['unresolved']}"
        assert a["footnoteRefs"] >= want["footnotes"], f"{name}: {slug}: footnotes not rendered"


def test_links_between_the_posts_reach_their_sections(site):
    name, _, audits = site
    for slug in POSTS:
        found = 0
        for link in audits[slug, DESKTOP]["otherPages"]:
            target = link["path"].removesuffix("index.html").removesuffix(".html").rstrip("/")
            sister = target.rsplit("/", 1)[-1]
            if sister not in POSTS or sister == slug:
                continue
            found += 1
            ids = audits[sister, DESKTOP]["ids"]
            assert not link["hash"] or link["hash"] in ids, f"{name}: {slug} -> {link}"
        assert found >= expected(slug)["sister_links"], f"{name}: {slug}: links to the sister lost"


def test_phone_no_page_scrolls_sideways(site):
    name, _, audits = site
    for slug in POSTS:
        a = audits[slug, PHONE]
        assert a["pageWidth"] <= a["viewport"], f"{name}: {slug} is {a['pageWidth']} px wide"


def test_phone_display_math_fits_or_scrolls_in_its_box(site):
    name, _, audits = site
    for slug in POSTS:
        for d in audits[slug, PHONE]["displays"]:
            assert d["fits"] or d["scrolls"], f"{name}: {slug}: a formula overflows the page"
            assert d["right"] <= PHONE, f"{name}: {slug}: a formula's box sticks out"


def test_phone_diagram_text_is_at_least_10px(site):
    name, _, audits = site
    for slug in POSTS:
        for d in audits[slug, PHONE]["diagrams"]:
            assert d["minTextPx"] >= 10, f"{name}: {slug}: {d['kind']} text {d['minTextPx']} px"
            assert d["boxRight"] <= PHONE, f"{name}: {slug}: a diagram's box sticks out"


def test_phone_charts_have_at_most_8_labels(site):
    name, _, audits = site
    crowded = [
        f"{slug}: {d['kind']} with {d['labels']} labels"
        for slug in POSTS
        for d in audits[slug, PHONE]["diagrams"]
        if d["labels"] > 8
    ]
    assert not crowded, f"{name}: charts with more than 8 labels: {crowded}"
