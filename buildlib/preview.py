"""A self-contained HTML preview of a woven post.

Markdown is rendered by markdown-it-py (CommonMark, as GitHub renders posts) with GFM tables and
strikethrough, and footnotes and heading anchors from mdit-py-plugins. Code is highlighted by
Pygments with its CSS inlined; ```` ```mermaid ```` fences become ``<pre class="mermaid">`` blocks that
the inlined ``node_modules/mermaid`` library renders in the browser. Nothing is fetched from a
network: the page opens from disk.
"""

from __future__ import annotations

import base64
import html
import re

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

from buildlib.markdown import github_slug, info_lang
from buildlib.markdown import split_front_matter as _split
from buildlib.mermaid import ROOT, MermaidUnavailable, find_mermaid_js

KATEX_DIST = ROOT / "node_modules" / "katex" / "dist"
KATEX_HINT = (
    "math in the preview needs node_modules/katex (pinned in package-lock.json): run `npm ci`"
)
_FORMATTER = HtmlFormatter(cssclass="highlight", style="friendly")

CSS = """
:root { color-scheme: light; }
body {
  margin: 0 auto; max-width: 52rem; padding: 2rem 1.25rem 4rem;
  font-family: -apple-system, "PingFang SC", "Hiragino Sans GB", "Noto Sans CJK SC",
    "Source Han Sans SC", "Microsoft YaHei", sans-serif;
  font-size: 16px; line-height: 1.8; color: #24292f; background: #fff;
  overflow-wrap: break-word; text-rendering: optimizeLegibility;
}
h1, h2, h3, h4 { line-height: 1.4; margin: 2em 0 0.8em; font-weight: 600; }
h1 { font-size: 1.9rem; margin-top: 0.5em; }
h2 { font-size: 1.45rem; border-bottom: 1px solid #d8dee4; padding-bottom: 0.3em; }
h3 { font-size: 1.2rem; }
p, ul, ol, table, pre, blockquote { margin: 0 0 1em; }
a { color: #0969da; text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre {
  font-family: "JetBrains Mono", "SFMono-Regular", Menlo, Consolas, "Noto Sans Mono CJK SC",
    monospace;
  font-size: 0.875em;
}
:not(pre) > code { background: #f3f4f6; border-radius: 4px; padding: 0.1em 0.35em; }
.highlight, pre { background: #f6f8fa; border-radius: 6px; margin: 0 0 1em; }
.highlight pre, pre { padding: 0.9em 1em; overflow-x: auto; line-height: 1.55; }
.highlight pre { margin: 0; background: transparent; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: 0.35em 0.8em; }
th { background: #f6f8fa; }
tr:nth-child(2n) td { background: #fafbfc; }
blockquote { border-left: 4px solid #d0d7de; color: #57606a; padding: 0 1em; margin-left: 0; }
pre.mermaid { background: transparent; text-align: center; }
.footnotes { font-size: 0.9em; color: #57606a; }
.footnotes-sep { border: 0; border-top: 1px solid #d8dee4; margin-top: 3em; }
"""


def split_front_matter(text: str) -> tuple[dict, str]:
    """(front matter as a dict, the rest of the text); ({}, text) when there is none."""
    raw, first_body = _split(text)
    if raw is None:
        return {}, text
    try:
        meta = yaml.safe_load(raw) or {}
    except yaml.YAMLError as e:
        raise ValueError(f"front matter is not valid YAML: {e}") from None
    if not isinstance(meta, dict):
        raise ValueError("front matter must be a YAML mapping")
    return meta, "\n".join(text.split("\n")[first_body:])


def katex_assets() -> tuple[str, str]:
    """(KaTeX's CSS with its woff2 fonts inlined as data URIs, its JS); nothing is fetched."""
    css_path, js_path = KATEX_DIST / "katex.min.css", KATEX_DIST / "katex.min.js"
    if not (css_path.is_file() and js_path.is_file()):
        raise MermaidUnavailable(KATEX_HINT)
    css = css_path.read_text(encoding="utf-8")

    def font(m: re.Match) -> str:
        data = base64.b64encode((KATEX_DIST / "fonts" / m.group(1)).read_bytes()).decode()
        return f'src:url(data:font/woff2;base64,{data}) format("woff2")'

    # keep the woff2 source of each face (every browser that runs the preview reads it)
    css = re.sub(r'src:url\(fonts/([\w-]+\.woff2)\) format\("woff2"\)[^;}]*', font, css)
    return css, js_path.read_text(encoding="utf-8")


def _fence(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    info = token.info.strip()
    lang = info_lang(info)
    if lang == "mermaid":
        return f'<pre class="mermaid">{html.escape(token.content)}</pre>\n'
    try:
        lexer = get_lexer_by_name(lang) if lang else TextLexer()
    except ClassNotFound:
        lexer = TextLexer()
    return highlight(token.content, lexer, _FORMATTER)


def _markdown() -> MarkdownIt:
    md = (
        MarkdownIt("commonmark", {"html": True})
        .enable(["table", "strikethrough"])
        .use(footnote_plugin)
        .use(anchors_plugin, min_level=1, max_level=4, slug_func=github_slug)
        .use(dollarmath_plugin, double_inline=True)
    )
    md.add_render_rule("fence", _fence)
    return md


def _inline_script(js: str) -> str:
    # A literal "</script" inside the code would end the element early.
    return "<script>" + re.sub(r"</(script)", r"<\\/\1", js, flags=re.I) + "</script>"


def render_html(markdown_text: str, title: str) -> str:
    """A self-contained HTML page for a woven post; its front matter's title wins over title.

    Raises MermaidUnavailable when node_modules/mermaid is missing (run `npm ci`).
    """
    js = find_mermaid_js().read_text(encoding="utf-8")
    meta, body = split_front_matter(markdown_text)
    title = str(meta.get("title") or title)
    md = _markdown()
    env: dict = {}
    tokens = md.parse(body, env)
    content = md.renderer.render(tokens, md.options, env)
    if not any(t.type == "heading_open" and t.tag == "h1" for t in tokens):
        content = f"<h1>{html.escape(title)}</h1>\n{content}"
    has_mermaid = any(t.type == "fence" and t.info.strip().startswith("mermaid") for t in tokens)
    has_math = any(t.type.startswith("math_") for t in tokens) or 'class="math' in content
    scripts, math_css = "", ""
    if has_math:
        math_css, katex_js = katex_assets()
        scripts += (
            _inline_script(katex_js)
            + "\n<script>for (const el of document.querySelectorAll('.math')) {\n"
            + "  katex.render(el.textContent, el, {displayMode: el.classList.contains('block'),"
            + " throwOnError: false});\n}</script>\n"
        )
    if has_mermaid:
        scripts += (
            _inline_script(js)
            + '\n<script>mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });\n'
            + 'mermaid.run({ querySelector: "pre.mermaid" });</script>\n'
        )
    pygments_css = _FORMATTER.get_style_defs(".highlight")
    return (
        "<!doctype html>\n"
        '<html lang="zh-CN">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{CSS}\n{pygments_css}\n{math_css}\n</style>\n</head>\n<body>\n<main>\n"
        f"{content}</main>\n{scripts}</body>\n</html>\n"
    )
