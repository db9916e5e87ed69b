"""`python build.py check`: every way the repository can drift from its sources or break a convention."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from .errors import BuildError
from .freeze import FREEZE_DIR
from .fsutil import stray_temporaries
from .markdown import fences, headings, prose_lines
from .pipeline import PALETTE_FILE, Project, build_all, load
from .render import load_results
from .source import DATA_LINKS
from .values import dist_name, pinned_versions, read_text
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
    project: Project, browser: bool = True, reader: bool = True, progress=None
) -> tuple[list[str], list[str]]:
    """Return (problems, report lines); progress(stage), when given, is called as each stage starts."""
    stage = progress or (lambda name: None)
    problems: list[str] = []
    report: list[str] = []
    stage("render the posts from the freeze")
    try:
        # renders from the freeze, executes nothing; a stale source is listed and the rest go on
        outputs = build_all(project, problems=problems)
    except BuildError as e:
        return [str(e)], report
    problems += check_in_sync(project, outputs)
    problems += check_temporaries(project)
    stage("ruff on the tangled code")
    problems += check_ruff(project)
    problems += check_results(project)
    problems += check_data_links(project)
    problems += check_pins(project)
    stage("fences, references, links, paths, code budget")
    posts = {f"posts/{name}": text for name, text in sorted(outputs["posts"].items())}
    series, sources = load(project)
    by_post = {f"posts/{s.slug}.md": s for s in sources}
    site_urls = {p.url for p in series.posts}
    for p in series.posts:
        if p.placeholder:
            report.append(
                f"warning: src_literate/series.yaml: {p.title} ({p.slug}) has a placeholder URL;"
                " posts show its title without a link"
            )
    repo = series.repository
    if repo is not None and repo.placeholder:
        report.append(
            f"warning: src_literate/series.yaml: the repository URL {repo.url} is a placeholder;"
            " posts show its link text without a link"
        )
    diagrams = []
    for rel, text in posts.items():
        problems += check_fences(rel, text)
        problems += check_references(rel, text)
        problems += check_links(project, rel, text, site_urls)
        problems += check_machine_traces(rel, text)
        diagrams += mermaid_blocks(rel, text)
        problems += check_budget(rel, text, by_post[rel].meta, report)
    stage(f"{len(diagrams)} diagrams" + (" in headless Chromium" if browser else " (lint only)"))
    problems += check_diagrams(project, diagrams, browser)
    if reader:
        for rel, text in posts.items():
            stage(f"run the python blocks of {rel} as a reader would")
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
        if path.name == "README.md":
            continue  # the folder's index, not a result
        if path.suffix == ".json":
            meta = parsed[path.stem].get("meta") if isinstance(parsed[path.stem], dict) else None
            named = set(meta) if isinstance(meta, dict) else set()
        else:  # a text artifact: a "# key: value" header
            text = read_text(path, project.root)
            named = {m.group(1) for m in re.finditer(r"^# (\w+): \S", text, re.M)}
        missing = [k for k in RESULT_META if k not in named]
        if missing:
            problems.append(f"{rel}: does not name its {', '.join(missing)} (results need them)")
    return problems


def check_data_links(project: Project) -> list[str]:
    """generated/'s data folders are links to the committed data (a copy would drift from it)."""
    problems = []
    for rel, target in DATA_LINKS.items():
        link = project.root / "generated" / rel
        if not (project.root / target).is_dir():
            continue  # a project without that data has nothing to link
        if not link.is_symlink() or link.resolve() != (project.root / target).resolve():
            problems.append(
                f"generated/{rel}: must be a link to {target} "
                f"(ln -s {os.path.relpath(project.root / target, link.parent)} generated/{rel})"
            )
    return problems


def check_pins(project: Project) -> list[str]:
    """Every distribution a frozen execution imported is pinned at the version it ran on.

    The freeze records those versions and a changed one makes the outputs stale, so an unpinned
    transitive dependency that moves on the index would break a fresh clone's check. A project
    with no requirements.txt pins nothing and is not checked."""
    if not (project.root / "requirements.txt").is_file():
        return []
    pins = pinned_versions(project.root)
    problems = []
    for path in sorted((project.root / FREEZE_DIR).glob("*.json")):
        rel = path.relative_to(project.root).as_posix()
        try:
            versions = json.loads(read_text(path, project.root))["inputs"]["versions"]
        except (ValueError, KeyError, TypeError):
            continue  # the freeze's own reader reports a malformed file
        for dist, ran in sorted(versions.items()):
            if dist == "python" or ran == "absent":
                continue
            ran = ran.split("+")[0]  # 2.13.0+cpu is pinned as 2.13.0
            pinned = pins.get(dist_name(dist))
            if pinned != ran:
                now = f"pinned at {pinned}" if pinned else "not pinned"
                problems.append(
                    f"{rel}: ran on {dist} {ran}, {now} in requirements.txt or constraints.txt"
                )
    return problems


def check_in_sync(project: Project, outputs: dict) -> list[str]:
    """generated/, posts/ and README.md must be exactly what the sources produce."""
    problems = []
    trees = [  # (shown as, outputs key, folder, managed suffix)
        ("generated", "generated", project.generated, ".py"),
        ("posts", "posts", project.posts, ".md"),
        (FREEZE_DIR, "freeze", project.root / FREEZE_DIR, ".json"),
    ]
    failed = outputs["failed"]
    skip = {f"{slug}.md" for slug in failed} | {f"{slug}.json" for slug in failed}
    for label, key, base, suffix in trees:
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
            if key != "generated" and rel in skip:
                continue  # its source's problem is listed already
            path = base / rel
            shown = f"{label}/{rel}"
            if rel not in want:
                problems.append(f"{shown}: not produced by any source (delete it or rebuild)")
            elif not path.exists():
                problems.append(f"{shown}: missing; run `python build.py posts`")
            elif path.read_text(encoding="utf-8") != want[rel]:
                problems.append(
                    f"{shown}: differs from its source (hand edit or stale); run `python build.py posts`"
                )
    if read_text(project.readme, project.root) != outputs["readme"]["README.md"]:
        problems.append("README.md: posts index is stale; run `python build.py posts`")
    return problems


def check_temporaries(project: Project) -> list[str]:
    """Temporary files an interrupted or killed build left beside the outputs."""
    folders = [project.root, project.generated, project.posts, project.root / FREEZE_DIR]
    found = sorted({p for base in folders for p in stray_temporaries(base)})
    return [
        f"{p.relative_to(project.root).as_posix()}: a temporary file a killed build left;"
        " `python build.py posts` removes it"
        for p in found
    ]


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


def check_fences(rel: str, text: str) -> list[str]:
    problems = []
    for f in fences(text):
        if not f.lang:
            problems.append(f"{rel}:{f.line}: fenced block has no language")
        if not f.closed:
            problems.append(f"{rel}:{f.line}: fenced block is not closed")
    return problems


def code_lines(text: str) -> tuple[int, int]:
    """(shown, folded) lines of python code in a post; folded code sits inside <details>."""
    shown = folded = 0
    inside, open_ = [], False  # inside[k]: line k+1 is within a <details> block
    for ln in text.split("\n"):
        open_ = (open_ or "<details>" in ln) and "</details>" not in ln
        inside.append(open_)
    for f in fences(text):
        if f.lang != "python":
            continue
        n = f.body.count("\n") + 1
        if inside[f.line - 1]:
            folded += n
        else:
            shown += n
    return shown, folded


def check_budget(rel: str, text: str, meta: dict, report: list[str]) -> list[str]:
    """Report prose length and code lines; a post over its code_budget is a problem."""
    n = prose_length(text)
    target = meta["target_chars"]
    shown, folded = code_lines(text)
    budget = meta.get("code_budget")
    report.append(
        f"{rel}: prose {n} (target ~{target}, {100 * n / target:.0f}%), python shown {shown}"
        + (f" of {budget}" if budget else "")
        + f", folded {folded}"
    )
    problems = []
    if budget and shown > budget:
        problems.append(f"{rel}: shows {shown} python lines, over its code_budget of {budget}")
    for prefix, least in (meta.get("min_prose_share") or {}).items():
        found = [(line, title, body) for line, title, body in chapters(text) if title.startswith(prefix)]
        if not found:
            problems.append(f"{rel}: min_prose_share names {prefix!r}, which begins no chapter")
            continue
        line, title, body = found[0]
        share = prose_length(f"## {title}\n{body}") / max(n, 1)
        if share < least:
            problems.append(f"{rel}:{line}: chapter {title!r} has {share:.1%} of the prose, under {least:.0%}")
    return problems


def chapters(text: str) -> list[tuple[int, str, str]]:
    """(line, title, text) of each ## chapter."""
    raw = text.split("\n")
    heads = [(h.line, h.text) for h in headings(text) if h.level == 2]
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


# a file on GitHub at a branch: its lines move between releases (spec §7); link a tag or a commit
UNPINNED_MODEL_SOURCE = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(blob|tree)/(main|master)/")


def check_links(project: Project, rel: str, text: str, site_urls: set[str]) -> list[str]:
    """Anchors must name a heading, relative paths must exist, site paths must be series posts."""
    problems = []
    anchors = {h.anchor for h in headings(text)}
    for k, ln in enumerate(prose_lines(text), 1):
        at = f"{rel}:{k}"
        for m in LINK.finditer(ln):
            url = m.group(2)
            if url.startswith("#"):
                if url[1:] not in anchors:
                    problems.append(f"{at}: link to #{url[1:]} matches no heading")
            elif re.match(r"https?://", url):
                if not re.match(r"https?://[\w.-]+\.[a-z]{2,}(/\S*)?$", url):
                    problems.append(f"{at}: malformed URL {url}")
                elif UNPINNED_MODEL_SOURCE.match(url):
                    problems.append(f"{at}: {url} follows a branch; pin a version tag")
            elif url.startswith("/"):
                if url.split("#")[0] not in site_urls:
                    problems.append(f"{at}: {url} is no post of the series")
            else:
                target, _, anchor = url.partition("#")
                path = project.root / "posts" / target
                if not path.exists():
                    problems.append(f"{at}: relative link {url} points nowhere")
                elif anchor and path.suffix == ".md":
                    if anchor not in {h.anchor for h in headings(path.read_text(encoding="utf-8"))}:
                        problems.append(f"{at}: link {url} matches no heading of {target}")
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

    return [Diagram(rel, f.line, f.body) for f in fences(text) if f.lang == "mermaid"]


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
    """CJK characters plus Latin words of the chapters (§零 table, navigation, code, link targets,
    inline SVG figures and the folded list of data files excluded)."""
    lines = text.split("\n")
    heads = [h.line - 1 for h in headings(text) if h.level == 2]
    first = next((k for k in heads if "§零" not in lines[k]), 0)
    last = next((k for k in heads if "相关文章" in lines[k]), len(lines))
    prose = "\n".join(prose_lines("\n".join(lines[first:last])))
    prose = re.sub(r"\]\([^)]*\)", "]", prose)
    prose = re.sub(r"<!--.*?-->", "", prose, flags=re.S)
    prose = re.sub(r"<svg\b.*?</svg>", "", prose, flags=re.S)  # a figure, not prose
    prose = re.sub(r'<details class="data-sources">.*?</details>', "", prose, flags=re.S)  # file names
    return len(CJK.findall(prose)) + len(LATIN_WORD.findall(CJK.sub(" ", prose)))


def python_blocks(text: str) -> list[tuple[int, str | None, str]]:
    """(line, gpu reason or None, code) for every python block of a post."""
    lines = text.split("\n")
    out = []
    for f in fences(text):
        if f.lang != "python":
            continue
        k = f.line - 2
        while k >= 0 and (not lines[k].strip() or lines[k].startswith(("<details>", "<summary>"))):
            k -= 1
        note = lines[k] if k >= 0 and lines[k].startswith(GPU_NOTE_PREFIX) else None
        out.append((f.line, note, f.body))
    return out


def shown_outputs(text: str) -> dict[int, str]:
    """{line of a python block: the text block the post shows as its output}: the ```text fence
    that follows it with nothing but blank lines (or the end of its <details>) in between."""
    lines, found = text.split("\n"), fences(text)
    out = {}
    for f, nxt in zip(found, found[1:]):
        between = lines[f.end : nxt.line - 1]
        if f.lang == "python" and nxt.lang == "text" and all(ln.strip() in ("", "</details>") for ln in between):
            out[f.line] = nxt.body
    return out


BLOCK_MARK = "\x1e block at line "  # printed before each block, to split the reader's stdout


def compare_outputs(rel: str, text: str, stdout: str) -> list[str]:
    """Each block's printed output against the output the post shows under it: hidden chunks run
    by the weave, but not by a reader, must not be what makes the shown output come true."""
    parts = re.split(rf"^{re.escape(BLOCK_MARK)}(\d+)\n", stdout, flags=re.M)
    printed = {int(parts[k]): parts[k + 1] for k in range(1, len(parts), 2)}
    problems = []
    for line, shown in shown_outputs(text).items():
        got = printed.get(line, "").strip("\n").split("\n")
        want = shown.strip("\n").split("\n")
        if got != want:
            k = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            first = got[k] if k < len(got) else "(nothing)"
            expected = want[k] if k < len(want) else "(nothing)"
            problems.append(
                f"{rel}:{line}: a reader running the post's blocks in order prints {first!r}"
                f" where the post shows {expected!r}"
            )
    return problems


def check_reader(project: Project, rel: str, text: str) -> list[str]:
    """Run the post's python blocks in order in a fresh interpreter, as a reader would."""
    blocks = python_blocks(text)
    if not blocks:
        return []
    script = []
    for line, note, body in blocks:
        script.append(f"# --- block at {rel}:{line}")
        script.append(f"print({BLOCK_MARK + str(line)!r}, flush=True)")
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
        return compare_outputs(rel, text, res.stdout)
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
