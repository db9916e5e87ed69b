#!/usr/bin/env python
"""The one entry point of the project.

python build.py tangle            write generated/qwen3_fusion/ from src_literate/*.pmd
python build.py posts [--refresh [SLUG ...]]
                                  tangle; execute sources whose frozen outputs are stale (or those
                                  named); write src_literate/_freeze/, posts/<slug>.md, README index
python build.py check             list every way the repository differs from its sources or breaks
                                  a rule; executes nothing (renders from the freeze)
python build.py preview [SLUG]    build the Hugo site into preview/ (opens from disk); print the pages
python build.py site TOOL [--out DIR]
                                  build posts/*.md into a hugo, mkdocs or hexo site (sites/<TOOL>/)
python build.py backlinks [--blog DIR]
                                  print (or rewrite in DIR) the series' "相关文章" section
python build.py bench [ARGS]      run the GPU benchmark (CUDA only) into src_literate/results/

Every command takes -q/--quiet (only problems and errors). Exit codes: 0 done; 1 a check found
problems or the build failed; 2 usage error; 3 the environment lacks something the command needs
(a CUDA GPU for bench; Chromium, Playwright, node_modules or a site tool), named in the message;
130/143 interrupted (SIGINT/SIGTERM): outputs all as before or all new.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ENVIRONMENT = 0, 1, 2, 3


def say(args, *lines) -> None:
    """Print informational lines unless --quiet."""
    if not args.quiet:
        for line in lines:
            print(line, flush=True)


def cmd_tangle(args) -> int:
    from buildlib.pipeline import Project, tangle_project, write_package

    project = Project(ROOT)
    changed = write_package(project, tangle_project(project))
    say(args, f"tangled generated/: {len(changed)} file(s) changed")
    return EXIT_OK


def cmd_posts(args) -> int:
    from buildlib.pipeline import Project, build_all, verify_diagrams, write_outputs
    from buildlib.weave import print_progress

    start = time.monotonic()
    project = Project(ROOT)
    refresh = None if args.refresh is None else set(args.refresh)
    progress = None if args.quiet else print_progress
    outputs = build_all(project, execute_stale=True, refresh=refresh, progress=progress)
    verify_diagrams(outputs, warn=print_progress)
    changed = write_outputs(project, outputs)  # "wrote <path>" / "removed <path>"
    say(args, *changed)
    say(args, f"posts built: {len(changed)} file(s) changed in {time.monotonic() - start:.1f} s")
    return EXIT_OK


def cmd_check(args) -> int:
    from buildlib.checks import run_checks
    from buildlib.mermaid import missing
    from buildlib.pipeline import Project

    if not args.no_browser and missing():
        print(f"error: {missing()} (or pass --no-browser)", file=sys.stderr)
        return EXIT_ENVIRONMENT
    start = time.monotonic()

    def progress(stage: str) -> None:
        say(args, f"check [{time.monotonic() - start:5.1f} s] {stage}")

    problems, report = run_checks(
        Project(ROOT), browser=not args.no_browser, reader=not args.no_reader, progress=progress
    )
    say(args, *report)
    for p in problems:
        print(f"problem: {p}")
    print(f"check: {len(problems)} problem(s) in {time.monotonic() - start:.1f} s")
    return EXIT_FAILED if problems else EXIT_OK


def cmd_preview(args) -> int:
    from buildlib.pipeline import Project
    from buildlib.previewing import write_previews

    for path in write_previews(Project(ROOT), args.slug):
        print(path)
    return EXIT_OK


def cmd_site(args) -> int:
    from buildlib.sites import build_site

    out = Path(args.out) if args.out else ROOT / ".cache" / "sites" / args.tool
    public = build_site(args.tool, out)
    say(args, f"{args.tool} site built from posts/*.md:")
    print(public)
    return EXIT_OK


def cmd_backlinks(args) -> int:
    from buildlib.backlinks import related_section, rewrite_blog
    from buildlib.pipeline import Project

    project = Project(ROOT)
    if args.blog is None:
        print(related_section(project, None), end="")
        return EXIT_OK
    changed = rewrite_blog(project, Path(args.blog))
    say(args, *(f"updated {path}" for path in changed))
    say(args, f"backlinks: {len(changed)} file(s) changed")
    return EXIT_OK


def cmd_bench(args) -> int:
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT / "generated"), os.environ.get("PYTHONPATH", "")]),
    )
    cmd = [sys.executable, "-m", "qwen3_fusion.bench", *args.rest]
    if {"-h", "--help", "--smoke"} & set(args.rest):  # help, or the CPU smoke run: any machine
        if "--smoke" in args.rest:
            env["TRITON_INTERPRET"] = "1"
        return subprocess.call(cmd, cwd=ROOT, env=env)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is None or not torch.cuda.is_available():
        print(
            "error: bench needs a CUDA GPU; this machine has none (run it on the lent H200)",
            file=sys.stderr,
        )
        return EXIT_ENVIRONMENT
    return subprocess.call(cmd, cwd=ROOT, env=env)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="build.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-q", "--quiet", action="store_true", help="print only problems, errors and results"
    )
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name, func, summary, description, **kw):
        p = sub.add_parser(name, help=summary, description=description, parents=[common], **kw)
        p.set_defaults(func=func)
        return p

    add(
        "tangle",
        cmd_tangle,
        "write generated/ from the sources",
        "Write the package generated/qwen3_fusion/ from the code chunks of src_literate/*.pmd "
        "(a chunk option module=... names the target module). Executes nothing.",
    )
    p = add(
        "posts",
        cmd_posts,
        "tangle, execute what is stale, weave the posts",
        "Tangle; execute the sources whose frozen outputs (src_literate/_freeze/) no longer match "
        "their code, modules, results files or library versions; weave posts/<slug>.md and the "
        "README index. One progress line per executed chunk.",
    )
    p.add_argument(
        "--refresh",
        nargs="*",
        metavar="SLUG",
        help="execute these posts' chunks again even if their frozen outputs are current "
        "(all if none given)",
    )
    p = add(
        "check",
        cmd_check,
        "verify outputs, diagrams, links, references, code",
        "Execute nothing; render the posts from the freeze and list every problem: stale freeze, "
        "outputs out of sync, ruff, results metadata, fences, references, links and anchors, "
        "machine paths, code budget, mermaid diagrams in headless Chromium, and the posts' python "
        "blocks run in order. One progress line per stage. Exit 1 when there are problems.",
    )
    p.add_argument("--no-browser", action="store_true", help="skip rendering diagrams in Chromium")
    p.add_argument("--no-reader", action="store_true", help="skip running the posts' code blocks")
    p = add(
        "preview",
        cmd_preview,
        "build the Hugo site into preview/",
        "Build the Hugo site of sites/hugo/ into preview/ with relative links (it opens from "
        "disk) and print the page of each post: what a reader of the Hugo site sees.",
    )
    p.add_argument("slug", nargs="?", help="print only this post's page")
    p = add(
        "site",
        cmd_site,
        "build a Hugo, MkDocs-Material or Hexo site",
        "Copy posts/*.md unmodified, with the configuration of sites/<TOOL>/ and the pinned KaTeX "
        "and mermaid, into a fresh site and build it with the pinned tool; print the site's folder.",
    )
    p.add_argument("tool", choices=["hugo", "mkdocs", "hexo"])
    p.add_argument("--out", metavar="DIR", help="work folder (default .cache/sites/TOOL)")
    p = add(
        "backlinks",
        cmd_backlinks,
        "the series' related-posts section",
        "Print the series' 相关文章 section, or rewrite only that marked section in the earlier "
        "posts found in DIR as <slug>.md.",
    )
    p.add_argument(
        "--blog", metavar="DIR", help="directory with the series' earlier posts to rewrite"
    )
    add(
        "bench",
        cmd_bench,
        "GPU benchmark (CUDA only)",
        "Run python -m qwen3_fusion.bench on a CUDA machine; it writes src_literate/results/<gpu>.json. "
        "Every option is passed on: `build.py bench --help` prints the benchmark's own options.",
        add_help=False,
    )
    return top


def main(argv: list[str] | None = None) -> int:
    top = parser()
    # bench forwards its options untouched to qwen3_fusion.bench, leading ones (--out ...) included
    args, rest = top.parse_known_args(argv)
    if rest and args.command != "bench":
        top.error(f"unrecognized arguments: {' '.join(rest)}")
    args.rest = rest

    from buildlib.browser import BrowserUnavailable
    from buildlib.errors import BuildError
    from buildlib.interrupt import run_guarded
    from buildlib.mermaid import MermaidUnavailable
    from buildlib.sites import ToolMissing

    try:
        return run_guarded(args.func, args)
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_FAILED
    except (MermaidUnavailable, ToolMissing, BrowserUnavailable) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_ENVIRONMENT


if __name__ == "__main__":
    code = main()
    if code in (128 + signal.SIGINT, 128 + signal.SIGTERM):
        # Interrupted: every cleanup already ran inside run_guarded. Leave now, so that the
        # interpreter's shutdown cannot print a late traceback (an orphaned nbclient task's
        # DeadKernelError) after the one-line "error: interrupted" message.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
