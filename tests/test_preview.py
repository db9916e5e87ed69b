"""buildlib.preview: one self-contained HTML page per woven post."""

import os
import re
import time
from html.parser import HTMLParser

import pytest

from buildlib import mermaid
from buildlib.mermaid import MermaidUnavailable

POST = """---
title: 看懂 Qwen3 + 识别算子融合机会
slug: qwen3-fusion-reading
---

## §一 为什么融合 RMSNorm

每个解码层有两次 RMSNorm[^1]，各自读写一遍 `hidden`。

**权威参考**
- [Triton tutorial](https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html)
- 第二项

```python
def rms(x, eps=1e-6):
    return x * (x.pow(2).mean(-1, keepdim=True) + eps).rsqrt()
```

| 形状 | GB/s |
|---|---:|
| 16384 x 1024 | 2954 |

```mermaid
flowchart LR
  A["输入 x"] --> B(RMSNorm)
```

[^1]: 见姊妹篇。
"""


def require(reason):
    """Skip for a missing install step; fail on CI, which installs everything."""
    if reason:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)


@pytest.fixture(scope="module")
def page():
    require(mermaid.NPM_HINT if not mermaid.MERMAID_JS.is_file() else None)
    from buildlib.preview import render_html

    return render_html(POST, "fallback title")


class Tags(HTMLParser):
    """Every start tag of a page with its attributes (script contents are not parsed as tags)."""

    def __init__(self, page):
        super().__init__()
        self.tags = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_self_contained(page):
    tags = Tags(page).tags
    loads = [(t, a) for t, a in tags if t in ("script", "link", "img", "iframe", "source", "embed")]
    assert [t for t, _ in loads] == ["script", "script"]  # the inlined library and its start-up
    assert not [a for _, a in loads if "src" in a or "href" in a]
    links = [a["href"] for t, a in tags if t == "a"]
    assert links and all(h.startswith(("#", "https://triton-lang.org/")) for h in links), links
    # the mermaid library itself is inlined, and no inlined code closes its <script> early
    script = re.search(r"<script>(.*?)</script>", page, flags=re.S).group(1)
    assert len(script) > 1_000_000 and "mermaid" in script


def test_front_matter_stripped_and_its_title_used(page):
    assert "<title>看懂 Qwen3 + 识别算子融合机会</title>" in page
    assert "<h1>看懂 Qwen3 + 识别算子融合机会</h1>" in page
    assert "slug:" not in page and "fallback title" not in page


def test_code_is_highlighted_with_inlined_css(page):
    assert '<div class="highlight">' in page
    assert '<span class="k">def</span>' in page and '<span class="k">return</span>' in page
    assert re.search(r"\.highlight \.k \{[^}]*color", page)  # Pygments CSS is in the <style>


def test_table_footnote_list_and_heading_anchor(page):
    assert "<th>形状</th>" in page and '<td style="text-align:right">2954</td>' in page
    assert '<a href="#fn1" id="fnref1">' in page and 'class="footnotes"' in page
    assert "见姊妹篇。" in page
    # GFM: a list right after a paragraph line is a list
    assert "<p><strong>权威参考</strong></p>\n<ul>" in page
    assert '<h2 id="一-为什么融合-rmsnorm">' in page


def test_mermaid_fence_left_for_the_browser(page):
    assert '<pre class="mermaid">flowchart LR\n  A[&quot;输入 x&quot;] --&gt; B(RMSNorm)' in page
    assert 'mermaid.run({ querySelector: "pre.mermaid" })' in page


def test_missing_mermaid_library_raises(monkeypatch, tmp_path):
    from buildlib.preview import render_html

    monkeypatch.setattr(mermaid, "MERMAID_JS", tmp_path / "mermaid.min.js")
    with pytest.raises(MermaidUnavailable, match="npm ci"):
        render_html(POST, "t")


def test_diagram_renders_offline_in_chromium(page, tmp_path):
    require(mermaid.missing())
    path = tmp_path / "post.html"
    path.write_text(page, encoding="utf-8")
    browser = mermaid._Browser(time.monotonic() + 30)
    try:
        browser.navigate(path.as_uri())
        wait_svg = """new Promise(done => {
          const t0 = Date.now();
          (function poll() {
            const svg = document.querySelector("pre.mermaid svg");
            if (svg || Date.now() - t0 > 10000) done(svg ? svg.textContent : null);
            else setTimeout(poll, 50);
          })();
        })"""
        text = browser.evaluate(wait_svg)
    finally:
        browser.close()
    assert text is not None and "输入 x" in text and "RMSNorm" in text


def test_math_renders_offline_with_katex_in_chromium(tmp_path):
    require(mermaid.missing())
    from buildlib.preview import KATEX_DIST, render_html

    require(None if (KATEX_DIST / "katex.min.js").is_file() else "node_modules/katex missing")
    page = render_html("## 公式\n\n行内 $r = 1/\\sqrt{x_i^2}$，独立：\n\n$$\\sum_i x_i$$\n", "t")
    assert "<link" not in page and "url(fonts/" not in page  # fonts inlined, nothing fetched
    path = tmp_path / "math.html"
    path.write_text(page, encoding="utf-8")
    browser = mermaid._Browser(time.monotonic() + 30)
    try:
        browser.navigate(path.as_uri())
        count = browser.evaluate(
            "document.querySelectorAll('.math .katex').length"
            " + 10 * document.querySelectorAll('.math.block .katex-display').length"
        )
    finally:
        browser.close()
    assert count == 12  # both formulas typeset, the block one in display mode
