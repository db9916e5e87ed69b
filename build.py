#!/usr/bin/env python
"""The one entry point of the project.

python build.py tangle            write generated/qwen3_fusion/ from src_literate/*.pmd
python build.py posts [--refresh [SLUG ...]]
                                  tangle; execute sources whose frozen outputs are stale (or those
                                  named); write src_literate/_freeze/, posts/<slug>.md, README index
python build.py check             list every way the repository differs from its sources or breaks
                                  a rule; executes nothing (renders from the freeze)
python build.py preview [SLUG]    write a self-contained HTML page per post and print its path
python build.py backlinks [--blog DIR]
                                  print (or rewrite in DIR) the series' "相关文章" section
python build.py bench [ARGS]      run the GPU benchmark (CUDA only) into src_literate/results/
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def cmd_tangle(args) -> int:
    from buildlib.pipeline import Project, tangle_project, write_package

    project = Project(ROOT)
    changed = write_package(project, tangle_project(project))
    print(f"tangled generated/: {len(changed)} file(s) changed")
    return 0


def cmd_posts(args) -> int:
    from buildlib.pipeline import Project, build_all, verify_diagrams, write_outputs
    from buildlib.weave import print_progress

    start = time.monotonic()
    project = Project(ROOT)
    refresh = None if args.refresh is None else set(args.refresh)
    outputs = build_all(project, execute_stale=True, refresh=refresh, progress=print_progress)
    verify_diagrams(outputs, warn=print_progress)
    changed = write_outputs(project, outputs)
    for line in changed:
        print(line)
    print(f"posts built: {len(changed)} file(s) changed in {time.monotonic() - start:.1f} s")
    return 0


def cmd_check(args) -> int:
    from buildlib.checks import run_checks
    from buildlib.pipeline import Project

    problems, report = run_checks(
        Project(ROOT), browser=not args.no_browser, reader=not args.no_reader
    )
    for line in report:
        print(line)
    for p in problems:
        print(f"problem: {p}")
    print(f"check: {len(problems)} problem(s)")
    return 1 if problems else 0


def cmd_preview(args) -> int:
    from buildlib.pipeline import Project
    from buildlib.previewing import write_previews

    for path in write_previews(Project(ROOT), args.slug):
        print(path)
    return 0


def cmd_backlinks(args) -> int:
    from buildlib.backlinks import related_section, rewrite_blog
    from buildlib.pipeline import Project

    project = Project(ROOT)
    if args.blog is None:
        print(related_section(project, None), end="")
        return 0
    changed = rewrite_blog(project, Path(args.blog))
    for path in changed:
        print(f"updated {path}")
    print(f"backlinks: {len(changed)} file(s) changed")
    return 0


def cmd_bench(args) -> int:
    try:
        import torch
    except ImportError:
        torch = None
    if torch is None or not torch.cuda.is_available():
        print(
            "bench needs a CUDA GPU; this machine has none (run it on the lent H200)",
            file=sys.stderr,
        )
        return 2
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT / "generated"), os.environ.get("PYTHONPATH", "")]),
    )
    cmd = [sys.executable, "-m", "qwen3_fusion.bench", *args.rest]
    return subprocess.call(cmd, cwd=ROOT, env=env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="build.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("tangle", help="write generated/ from the sources").set_defaults(func=cmd_tangle)
    p = sub.add_parser("posts", help="tangle and weave the posts")
    p.add_argument(
        "--refresh",
        nargs="*",
        metavar="SLUG",
        help="execute these posts' chunks again even if their frozen outputs are current (all if none given)",
    )
    p.set_defaults(func=cmd_posts)
    p = sub.add_parser("check", help="verify outputs, diagrams, links, references, code")
    p.add_argument("--no-browser", action="store_true", help="skip rendering diagrams in Chromium")
    p.add_argument("--no-reader", action="store_true", help="skip running the posts' code blocks")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("preview", help="write HTML previews")
    p.add_argument("slug", nargs="?")
    p.set_defaults(func=cmd_preview)
    p = sub.add_parser("backlinks", help="the series' related-posts section")
    p.add_argument("--blog", help="directory with the series' earlier posts to rewrite")
    p.set_defaults(func=cmd_backlinks)
    p = sub.add_parser("bench", help="GPU benchmark (CUDA only)")
    p.set_defaults(func=cmd_bench)
    # bench forwards its options untouched to qwen3_fusion.bench, leading ones (--out ...) included
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "bench":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    args.rest = rest

    from buildlib.errors import BuildError
    from buildlib.interrupt import run_guarded

    try:
        return run_guarded(args.func, args)
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
