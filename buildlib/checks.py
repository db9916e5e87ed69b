"""`python build.py check`: every way the repository can drift from its sources or break a convention."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from .errors import BuildError
from .pipeline import PALETTE_FILE, Project, build_all, load
from .render import FENCE, heading_anchor, load_results
from .weave import GPU_NOTE

LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)\)")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
LATIN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+\-]*")
MACHINE_TRACES = [
    (re.compile(r"/(?:root|home|tmp|work)/[\w./-]+"), "a machine path"),
    (re.compile(r"site-packages"), "a site-packages path"),
    (re.compile(r"\b0x[0-9a-f]{8,}\b"), "a memory address"),
]
REFERENCES_MARK = "**权威参考**"
SKIP_REFERENCE_CHAPTERS = ("§零", "参考资料", "相关文章")
GPU_NOTE_PREFIX = GPU_NOTE.split("{")[0]


def run_checks(
    project: Project, browser: bool = True, reader: bool = True
) -> tuple[list[str], list[str]]:
    """Return (problems, report lines)."""
    problems: list[str] = []
    report: list[str] = []
    try:
        outputs = build_all(project, use_cache=True)
    except BuildError as e:
        return [str(e)], report
    problems += check_in_sync(project, outputs)
    problems += check_ruff(project)
    problems += check_results(project)
    posts = {f"posts/{name}": text for name, text in sorted(outputs["posts"].items())}
    series, sources = load(project)
    targets = {f"posts/{s.slug}.md": s.meta["target_chars"] for s in sources}
    site_urls = {p.url for p in series.posts}
    diagrams = []
    for rel, text in posts.items():
        problems += check_fences(rel, text)
        problems += check_references(rel, text)
        problems += check_links(project, rel, text, site_urls)
        problems += check_machine_traces(rel, text)
        diagrams += mermaid_blocks(rel, text)
        n = prose_length(text)
        target = targets.get(rel)
        report.append(f"prose length {rel}: {n} (target ~{target}, {100 * n / target:.0f}%)")
    problems += check_diagrams(project, diagrams, browser)
    if reader:
        for rel, text in posts.items():
            problems += check_reader(project, rel, text)
    return problems, report


RESULT_META = ("gpu", "driver", "torch", "triton", "transformers", "date", "command")


def check_results(project: Project) -> list[str]:
    """Every committed results file names the GPU, the versions, the date and the command."""
    problems = []
    parsed = load_results(project.root)  # the JSON files, as the build reads them
    folder = project.root / "src_literate" / "results"
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        rel = path.relative_to(project.root).as_posix()
        if path.suffix == ".json":
            meta = parsed[path.stem].get("meta") if isinstance(parsed[path.stem], dict) else None
            named = set(meta) if isinstance(meta, dict) else set()
        else:  # a text artifact: a "# key: value" header
            text = path.read_text(encoding="utf-8")
            named = {m.group(1) for m in re.finditer(r"^# (\w+): \S", text, re.M)}
        missing = [k for k in RESULT_META if k not in named]
        if missing:
            problems.append(f"{rel}: does not name its {', '.join(missing)} (results need them)")
    return problems


def check_in_sync(project: Project, outputs: dict) -> list[str]:
    """generated/, posts/ and README.md must be exactly what the sources produce."""
    problems = []
    trees = {"generated": (project.generated, ".py"), "posts": (project.posts, ".md")}
    for key, (base, suffix) in trees.items():
        want = outputs[key]
        have = (
            {
                p.relative_to(base).as_posix()
                for p in base.rglob(f"*{suffix}")
                if "__pycache__" not in p.parts
            }
            if base.exists()
            else set()
        )
        for rel in sorted(set(want) | have):
            path = base / rel
            shown = f"{key}/{rel}"
            if rel not in want:
                problems.append(f"{shown}: not produced by any source (delete it or rebuild)")
            elif not path.exists():
                problems.append(f"{shown}: missing; run `python build.py posts`")
            elif path.read_text(encoding="utf-8") != want[rel]:
                problems.append(
                    f"{shown}: differs from its source (hand edit or stale); run `python build.py posts`"
                )
    if project.readme.read_text(encoding="utf-8") != outputs["readme"]["README.md"]:
        problems.append("README.md: posts index is stale; run `python build.py posts`")
    return problems


def check_ruff(project: Project) -> list[str]:
    """Tangled code must be in ruff's format and pass its lint."""
    problems = []
    for args, what in (
        (["format", "--check"], "format"),
        (["check", "--no-fix", "--output-format=concise"], "lint"),
    ):
        try:
            res = subprocess.run(
                [sys.executable, "-m", "ruff", *args, "generated"],
                cwd=project.root,
                capture_output=True,
                text=True,
                timeout=120,
                env=dict(os.environ, NO_COLOR="1"),
            )
        except FileNotFoundError:
            return ["ruff is not installed: pip install ruff"]
        if res.returncode != 0:
            detail = (res.stdout + res.stderr).strip().split("\n")
            problems.append(
                f"ruff {what} fails on generated/ (fix the chunks in the source):\n  "
                + "\n  ".join(detail[:30])
            )
    return problems


def fences(text: str):
    """Yield (line, info, body) for every fenced block of a Markdown text."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].startswith(m.group(1)):
                j += 1
            yield i + 1, lines[i][len(m.group(1)) :].strip(), "\n".join(lines[i + 1 : j])
            i = j
        i += 1


def strip_code(text: str) -> str:
    """The text with fenced blocks and inline code removed."""
    out, lines, spans = [], text.split("\n"), []
    for line, _, body in fences(text):
        spans.append((line, line + body.count("\n") + 2 if body else line + 1))
    for k, ln in enumerate(lines, 1):
        if not any(a <= k <= b for a, b in spans):
            out.append(re.sub(r"`[^`\n]*`", " ", ln))
    return "\n".join(out)


def check_fences(rel: str, text: str) -> list[str]:
    return [
        f"{rel}:{line}: fenced block has no language" for line, info, _ in fences(text) if not info
    ]


def chapters(text: str) -> list[tuple[int, str, str]]:
    """(line, title, text) of each ## chapter, code excluded from the headings."""
    clean = strip_code(text).split("\n")
    raw = text.split("\n")
    heads = [(k, ln[3:].strip()) for k, ln in enumerate(raw, 1) if ln.startswith("## ")]
    code_free = {ln for ln in clean}
    heads = [(k, t) for k, t in heads if f"## {t}" in code_free]
    out = []
    for idx, (k, title) in enumerate(heads):
        end = heads[idx + 1][0] - 1 if idx + 1 < len(heads) else len(raw)
        out.append((k, title, "\n".join(raw[k:end])))
    return out


def check_references(rel: str, text: str) -> list[str]:
    """Each chapter (not §零, 参考资料, 相关文章) ends with 3 to 5 authoritative references."""
    problems = []
    for line, title, body in chapters(text):
        if any(s in title for s in SKIP_REFERENCE_CHAPTERS):
            continue
        if REFERENCES_MARK not in body:
            problems.append(f"{rel}:{line}: chapter {title!r} has no {REFERENCES_MARK} list")
            continue
        tail = body.split(REFERENCES_MARK, 1)[1]
        items = re.findall(r"^\s*[-*] .*\]\((https?://[^)\s]+)\)", tail, re.M)
        if not 3 <= len(items) <= 5:
            problems.append(
                f"{rel}:{line}: chapter {title!r} has {len(items)} references (want 3 to 5)"
            )
    return problems


UNPINNED_MODEL_SOURCE = re.compile(
    r"https://github\.com/huggingface/transformers/blob/(main|master)/src/transformers/models/"
)


def check_links(project: Project, rel: str, text: str, site_urls: set[str]) -> list[str]:
    """Anchors must name a heading, relative paths must exist, site paths must be series posts."""
    problems = []
    anchors = {heading_anchor(ln.lstrip("#")) for ln in text.split("\n") if ln.startswith("#")}
    for k, ln in enumerate(strip_code(text).split("\n"), 1):
        for m in LINK.finditer(ln):
            url = m.group(2)
            if url.startswith("#"):
                if url[1:] not in anchors:
                    problems.append(f"{rel}: link to #{url[1:]} matches no heading")
            elif re.match(r"https?://", url):
                if not re.match(r"https?://[\w.-]+\.[a-z]{2,}(/\S*)?$", url):
                    problems.append(f"{rel}: malformed URL {url}")
                elif UNPINNED_MODEL_SOURCE.match(url):
                    # spec §7: model source moves between releases; link a tag or a commit
                    problems.append(f"{rel}: {url} follows a branch; pin a version tag")
            elif url.startswith("/"):
                if url.split("#")[0] not in site_urls:
                    problems.append(f"{rel}: {url} is no post of the series")
            elif not (project.root / "posts" / url.split("#")[0]).exists():
                problems.append(f"{rel}: relative link {url} points nowhere")
    return problems


def check_machine_traces(rel: str, text: str) -> list[str]:
    """Posts must not carry what varies from machine to machine."""
    problems = []
    for k, ln in enumerate(text.split("\n"), 1):
        for pattern, what in MACHINE_TRACES:
            if pattern.search(ln):
                problems.append(f"{rel}:{k}: contains {what}: {ln.strip()[:80]}")
    return problems


def mermaid_blocks(rel: str, text: str) -> list:
    from .mermaid import Diagram

    return [Diagram(rel, line, body) for line, info, body in fences(text) if info == "mermaid"]


def check_diagrams(project: Project, diagrams: list, browser: bool) -> list[str]:
    from .mermaid import MermaidUnavailable, lint, load_palette, render_all

    palette = load_palette(project.root / PALETTE_FILE)
    classes = set(palette["classes"])
    problems = [f"{d.post}:{d.line}: {msg}" for d in diagrams for msg in lint(d.source, classes)]
    if browser and diagrams:
        try:
            problems += render_all(diagrams)
        except MermaidUnavailable as e:
            problems.append(str(e))
    return problems


def prose_length(text: str) -> int:
    """CJK characters plus Latin words of the chapters (§零 table, navigation, code, link targets excluded)."""
    lines = text.split("\n")
    heads = [k for k, ln in enumerate(lines) if ln.startswith("## ")]
    first = next((k for k in heads if "§零" not in lines[k]), 0)
    last = next((k for k in heads if "相关文章" in lines[k]), len(lines))
    prose = strip_code("\n".join(lines[first:last]))
    prose = re.sub(r"\]\([^)]*\)", "]", prose)
    prose = re.sub(r"<!--.*?-->", "", prose, flags=re.S)
    return len(CJK.findall(prose)) + len(LATIN_WORD.findall(CJK.sub(" ", prose)))


def python_blocks(text: str) -> list[tuple[int, str | None, str]]:
    """(line, gpu reason or None, code) for every python block of a post."""
    lines = text.split("\n")
    out = []
    for line, info, body in fences(text):
        if info != "python":
            continue
        k = line - 2
        while k >= 0 and not lines[k].strip():
            k -= 1
        note = lines[k] if k >= 0 and lines[k].startswith(GPU_NOTE_PREFIX) else None
        out.append((line, note, body))
    return out


def check_reader(project: Project, rel: str, text: str) -> list[str]:
    """Run the post's python blocks in order in a fresh interpreter, as a reader would."""
    blocks = python_blocks(text)
    if not blocks:
        return []
    script = []
    for line, note, body in blocks:
        script.append(f"# --- block at {rel}:{line}")
        script.append("pass  # needs a GPU, skipped" if note else body)
    env = dict(os.environ, PYTHONPATH=str(project.generated), PYTHONHASHSEED="0")
    try:
        import torch

        if not torch.cuda.is_available():
            env["TRITON_INTERPRET"] = "1"
    except ImportError:
        pass
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "reader.py"
        script = "\n".join(script).split("\n")
        path.write_text("\n".join(script) + "\n", encoding="utf-8")
        try:
            res = subprocess.run(
                [sys.executable, str(path)],
                cwd=project.root,
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
            )
        except subprocess.TimeoutExpired:
            return [f"{rel}: its python blocks did not finish in 900 s"]
    if res.returncode == 0:
        return []
    where = rel
    nums = [int(n) for n in re.findall(r'File ".*reader\.py", line (\d+)', res.stderr)]
    if nums:
        marks = [ln for ln in script[: nums[-1]] if ln.startswith("# --- block at ")]
        if marks:
            where = marks[-1].removeprefix("# --- block at ")
    last = (
        res.stderr.strip().split("\n")[-1] if res.stderr.strip() else f"exit code {res.returncode}"
    )
    return [f"{where}: a reader running the post's blocks in order gets: {last}"]
