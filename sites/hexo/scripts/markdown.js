/* global hexo */
// What hexo-renderer-markdown-it does not do for these posts, added to its parser once:
// - heading ids by GitHub's rules (markdown-it-anchor + github-slugger), the anchors of §零 and of links;
// - $…$ and $$…$$ typeset at build time with the pinned KaTeX (@vscode/markdown-it-katex);
// - ```mermaid fences left for assets/diagrams.js to draw, other fences highlighted by highlight.js
//   (Hexo's own highlighting is off in _config.yml: it rewrote every fence before markdown-it ran);
// - `sister-post.md#anchor` links (the form GitHub opens) rewritten to the post's URL /posts/<slug>/.
"use strict";

const path = require("path");
const anchor = require("markdown-it-anchor");
const katex = require("@vscode/markdown-it-katex").default;
const { slug } = require("github-slugger");
const { highlight } = require("hexo-util");

const configured = new WeakSet();

function sisterLinks(md) {
  const postsDir = path.join(hexo.source_dir, "_posts");
  const fs = require("fs");
  const posts = new Set(fs.readdirSync(postsDir).filter((f) => f.endsWith(".md")));
  md.core.ruler.push("sister_post_links", (state) => {
    for (const block of state.tokens) {
      for (const tok of block.children || []) {
        if (tok.type !== "link_open") continue;
        const m = /^([\w-]+\.md)(#.*)?$/.exec(tok.attrGet("href") || "");
        if (m && posts.has(m[1])) {
          tok.attrSet("href", `${hexo.config.root}posts/${m[1].slice(0, -3)}/${m[2] || ""}`);
        }
      }
    }
  });
}

function mermaidFences(md) {
  const fence = md.renderer.rules.fence;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    if (tokens[idx].info.trim().split(/\s+/)[0] !== "mermaid") {
      return fence(tokens, idx, options, env, self);
    }
    return `<pre class="diagram-mermaid">${md.utils.escapeHtml(tokens[idx].content)}</pre>\n`;
  };
  md.options.highlight = (code, lang) =>
    lang ? highlight(code, { lang, hljs: true, gutter: false, wrap: false }) : "";
}

hexo.extend.filter.register("markdown-it:renderer", (md) => {
  if (configured.has(md)) return;
  configured.add(md);
  md.use(anchor, { level: [1, 2, 3, 4, 5, 6], slugify: slug, tabIndex: false });
  md.use(katex, { throwOnError: false, enableMathBlockInHtml: false });
  mermaidFences(md);
  sisterLinks(md);
});
