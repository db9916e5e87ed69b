// What a reader's browser shows of one post page, measured after mermaid has drawn (tests/test_sites.py).
// One function of no argument; returns plain data that the test compares with the post's Markdown.
() => {
  const article = document.querySelector("article") || document.body;
  const outside = (el, sel) => !el.parentElement || !el.parentElement.closest(sel);
  const here = location.href.split("#")[0];
  const ids = new Set([...document.querySelectorAll("[id]")].map((e) => e.id));
  for (const a of document.querySelectorAll("a[name]")) ids.add(a.name);
  const links = [...article.querySelectorAll("a[href]")].map((a) => new URL(a.href, location.href));
  const inPage = links.filter((u) => u.href.split("#")[0] === here && u.hash.length > 1);
  const target = (u) => decodeURIComponent(u.hash.slice(1));
  const svgs = [...article.querySelectorAll(".diagram-mermaid > svg")];
  // text a reader sees outside code and typeset math: raw $$ or ``` there means a renderer missed it
  const clone = article.cloneNode(true);
  for (const el of clone.querySelectorAll("pre, code, .katex, script, style, svg")) el.remove();
  const text = clone.textContent;
  const vw = window.innerWidth;
  const diagrams = svgs.map((svg) => {
    const box = svg.viewBox.baseVal;
    const scale = box && box.width ? svg.getBoundingClientRect().width / box.width : 1;
    let smallest = Infinity;
    for (const el of svg.querySelectorAll("text, foreignObject span, foreignObject p")) {
      if (!el.textContent.trim() || el.closest("foreignObject span") !== el && el.tagName !== "text" && el.querySelector("span")) continue;
      smallest = Math.min(smallest, parseFloat(getComputedStyle(el).fontSize) * scale);
    }
    const holder = svg.parentElement.getBoundingClientRect();
    const kind = svg.getAttribute("aria-roledescription") || "";
    const labels = kind.startsWith("xychart")
      ? [...svg.querySelectorAll(".bottom-axis .label text, .left-axis .label text")].filter(
          (t) => !/^[\d.,\s]+$/.test(t.textContent)).length
      : 0;
    return { kind, minTextPx: Math.round(smallest * 10) / 10, boxRight: holder.right, labels };
  });
  const displays = [...article.querySelectorAll(".katex-display")].map((el) => {
    const box = el.getBoundingClientRect();
    const scrolls = ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
    return { fits: el.scrollWidth <= el.clientWidth + 1, scrolls, right: box.right };
  });
  return {
    title: document.title,
    h1: document.querySelectorAll("h1").length,
    mermaidSvgs: svgs.length,
    mermaidPending: article.querySelectorAll(".diagram-mermaid:not(:has(svg))").length,
    katex: [...article.querySelectorAll(".katex")].filter((el) => outside(el, ".katex")).length,
    katexErrors: article.querySelectorAll(".katex-error").length,
    details: article.querySelectorAll("details").length,
    detailsOpen: article.querySelectorAll("details[open]").length,
    detailsWithCode: [...article.querySelectorAll("details")].filter((d) => d.querySelector("pre")).length,
    anchors: inPage.length,
    anchorsResolved: inPage.filter((u) => ids.has(target(u))).length,
    unresolved: inPage.filter((u) => !ids.has(target(u))).map((u) => u.hash).slice(0, 5),
    footnoteRefs: inPage.filter((u) => /^#fn[:\d-]/.test(u.hash) && !/fnref/.test(u.hash)).length,
    otherPages: links.filter((u) => u.origin === location.origin && u.href.split("#")[0] !== here)
      .map((u) => ({ path: u.pathname, hash: target(u) })),
    ids: [...ids],
    rawMath: (text.match(/\$\$|\\\(|\\\[/g) || []).length,
    rawFence: (text.match(/```/g) || []).length,
    pageWidth: document.documentElement.scrollWidth,
    viewport: vw,
    diagrams,
    displays,
  };
}
