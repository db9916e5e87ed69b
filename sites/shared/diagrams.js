// Shared by the three sites (copied to assets/diagrams.js next to the pinned mermaid.min.js): render
// every ```mermaid block offline, then give each SVG a minimum width at which its smallest text is
// still 10.5 px, so that a narrow (phone) column scrolls the diagram in its box instead of shrinking
// its labels below legibility. mermaid keeps `max-width: <natural width>` on the SVG, so wide
// screens still see the diagram at its natural size.
(function () {
  const MIN_TEXT_PX = 10.5;
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
  function keepLegible(svg) {
    const box = svg.viewBox && svg.viewBox.baseVal;
    if (!box || !box.width) return;
    let smallest = Infinity;
    for (const el of svg.querySelectorAll("text, foreignObject span, foreignObject div, foreignObject p")) {
      if (!el.textContent.trim()) continue;
      const px = parseFloat(getComputedStyle(el).fontSize);
      if (px > 0) smallest = Math.min(smallest, px);
    }
    if (!isFinite(smallest)) return;
    // font sizes are in the SVG's user units; rendered size = size * (rendered width / viewBox width)
    svg.style.minWidth = Math.ceil((box.width * MIN_TEXT_PX) / smallest) + "px";
  }
  window.diagramsReady = mermaid
    .run({ querySelector: ".diagram-mermaid" })
    .then(() => document.querySelectorAll(".diagram-mermaid > svg").forEach(keepLegible))
    .then(() => (document.documentElement.dataset.diagrams = "done"))
    .catch((e) => {
      document.documentElement.dataset.diagrams = "failed";
      throw e;
    });
})();
