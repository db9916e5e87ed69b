// Typeset pymdownx.arithmatex's \(…\) and \[…\] spans with the pinned KaTeX (MkDocs-Material's recipe,
// without its CDN). Loaded after katex.min.js and auto-render.min.js.
document.querySelectorAll(".arithmatex").forEach((el) =>
  renderMathInElement(el, {
    delimiters: [
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    throwOnError: false,
  })
);
