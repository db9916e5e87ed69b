# ruff: noqa: F811 - pytest fixtures imported from test_build are redefined as arguments
"""The build against a careless author or a hostile pull request (issue 14).

Every bad input must give one line naming the file and line, fail, leave every output as it was
and leave no temporary file; the freeze must notice a change of anything the execution read.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_build import built, edit, line_of, project, snapshot  # noqa: F401 - fixtures

from buildlib import fsutil
from buildlib.checks import run_checks
from buildlib.errors import BuildError
from buildlib.pipeline import Project, build_all, verify_diagrams, write_outputs

PMD = "src_literate/sample.pmd"
SERIES = "src_literate/series.yaml"


def leftovers(root: Path) -> list[str]:
    """Temporary files beside the outputs."""
    return [p.name for p in root.rglob("*.tmp")]


def fails_cleanly(project: Project, **kwargs) -> str:
    """Build and write; the one-line error, after checking that nothing was written or left."""
    before = snapshot(project.root)
    with pytest.raises(BuildError) as info:
        outputs = build_all(project, execute_stale=True, **kwargs)
        write_outputs(project, outputs)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    assert snapshot(project.root) == before
    assert leftovers(project.root) == []
    assert not (project.root.parent / "escaped.md").exists()
    return message


def write(project: Project, rel: str, data: bytes | str) -> None:
    path = project.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def replace(project: Project, rel: str, old: str, new: str) -> None:
    edit(project, old, new, path=rel)


# (case, how to break the sample, where the error must point, what it must say)
BAD = [
    (
        "slug ../../escaped",
        lambda p: replace(p, PMD, "slug: sample-post", "slug: ../../escaped"),
        f"{PMD}:3",
        "slug '../../escaped': use lowercase",
    ),
    (
        "slug a*b",
        lambda p: replace(p, PMD, "slug: sample-post", "slug: a*b"),
        f"{PMD}:3",
        "slug 'a*b'",
    ),
    (
        "slug .hidden",
        lambda p: replace(p, PMD, "slug: sample-post", "slug: .hidden"),
        f"{PMD}:3",
        "slug '.hidden'",
    ),
    (
        "slug 't post'",
        lambda p: replace(p, PMD, "slug: sample-post", "slug: t post"),
        f"{PMD}:3",
        "slug 't post'",
    ),
    (
        "slug sub/dir",
        lambda p: replace(p, PMD, "slug: sample-post", "slug: sub/dir"),
        f"{PMD}:3",
        "slug 'sub/dir'",
    ),
    (
        "series slug ../../escaped",
        lambda p: replace(p, SERIES, "slug: earlier-post", "slug: ../../escaped"),
        f"{SERIES}:3",
        "slug '../../escaped'",
    ),
    (
        "series slug sub/dir",
        lambda p: replace(p, SERIES, "slug: earlier-post", "slug: sub/dir"),
        f"{SERIES}:3",
        "slug 'sub/dir'",
    ),
    (
        "date yesterday",
        lambda p: replace(p, PMD, "date: 2026-12-02", "date: yesterday"),
        f"{PMD}:4",
        "date 'yesterday' is not a real day",
    ),
    (
        "date 2026-13-45",
        lambda p: replace(p, PMD, "date: 2026-12-02", "date: 2026-13-45"),
        f"{PMD}:4",
        "date '2026-13-45' is not a real day",
    ),
    (
        "min_versions float",
        lambda p: replace(
            p, PMD, "target_chars: 100", "target_chars: 100\nmin_versions: {torch: 2.10}"
        ),
        f"{PMD}:8",
        "min_versions torch: 2.1 must be a quoted version",
    ),
    (
        "min_versions string",
        lambda p: replace(p, PMD, "target_chars: 100", 'target_chars: 100\nmin_versions: "2.10"'),
        f"{PMD}:8",
        "min_versions must be a mapping",
    ),
    (
        "module __init__",
        lambda p: replace(p, PMD, 'module="hidden_toy"', 'module="__init__"'),
        f"{PMD}:50",
        "module '__init__': a Python keyword or a __dunder__ name",
    ),
    (
        "module class",
        lambda p: replace(p, PMD, 'module="hidden_toy"', 'module="class"'),
        f"{PMD}:50",
        "module 'class': a Python keyword",
    ),
    (
        "module shadowing",
        lambda p: replace(p, PMD, 'module="hidden_toy"', 'module="toy.sub"'),
        f"{PMD}:50",
        "module 'toy.sub' would make toy.py a package and hide it",
    ),
    (
        "pmd not UTF-8",
        lambda p: write(
            p, PMD, (p.root / PMD).read_bytes().replace("样例的引言".encode(), b"\xff\xfe")
        ),
        f"{PMD}:10",
        "not UTF-8 (byte 0xff)",
    ),
    (
        "pmd NUL byte",
        lambda p: replace(p, PMD, "样例的引言。", "样例\x00的引言。"),
        f"{PMD}:10",
        "contains a NUL byte",
    ),
    (
        "series not UTF-8",
        lambda p: write(p, SERIES, b"name: \xe6\xa0\n"),
        f"{SERIES}:1",
        "not UTF-8",
    ),
    (
        "results not UTF-8",
        lambda p: write(p, "src_literate/results/x.json", b'{"a": "\xff"}'),
        "src_literate/results/x.json:1",
        "not UTF-8",
    ),
    (
        "palette not UTF-8",
        lambda p: write(p, "templates/mermaid_palette.yaml", b"init: \xff\n"),
        "templates/mermaid_palette.yaml:1",
        "not UTF-8",
    ),
    (
        "template not UTF-8",
        lambda p: write(p, "templates/related.md.j2", b"\n\xff"),
        "templates/related.md.j2:2",
        "not UTF-8",
    ),
    (
        "palette class style",
        lambda p: replace(p, "templates/mermaid_palette.yaml", 'hfGray: "fill', 'hfGray: "fill;'),
        "templates/mermaid_palette.yaml",
        "class hfGray: style",
    ),
    (
        "series url 5",
        lambda p: replace(p, SERIES, "url: /posts/earlier-post/", "url: 5"),
        f"{SERIES}:3",
        "url must be a site path",
    ),
    (
        "series glossary list",
        lambda p: replace(
            p, SERIES, "glossary:\n  kernel launch:", "glossary:\n  - kernel launch:"
        ),
        f"{SERIES}:9",
        "glossary must be a mapping",
    ),
    (
        "results NaN",
        lambda p: write(p, "src_literate/results/x.json", '{\n"speedup": NaN\n}'),
        "src_literate/results/x.json:2",
        "NaN is no number a post can show",
    ),
    (
        "results Infinity",
        lambda p: write(p, "src_literate/results/x.json", '{"t": Infinity}'),
        "src_literate/results/x.json:1",
        "Infinity is no number",
    ),
    (
        "freeze missing keys",
        lambda p: write(
            p, "src_literate/_freeze/sample-post.json", '{"version": 3, "source": "x"}'
        ),
        "src_literate/_freeze/sample-post.json",
        "freeze lacks 'inputs'",
    ),
    (
        "unclosed chunk fence",
        lambda p: replace(p, PMD, "    return x + b\n```", "    return x + b\n"),
        f"{PMD}:30",
        "chunk is not valid Python: invalid syntax (line 30 inside it starts with ```",
    ),
    (
        "unclosed last fence",
        lambda p: replace(p, PMD, "  class A hfBlue\n```", "  class A hfBlue"),
        f"{PMD}:62",
        "fenced block is not closed by ```",
    ),
    (
        "chunk raises",
        lambda p: replace(p, PMD, "print(scale(21))", "print(scale(21))\nraise ValueError('boom')"),
        f"{PMD}:34",
        "chunk line 30 raised ValueError: boom",
    ),
    (
        "chunk prints 2 MB",
        lambda p: replace(p, PMD, "print(scale(21))", "print('x' * 2_000_000)"),
        f"{PMD}:30",
        "chunk line 30 stopped: printed more than 1 MB",
    ),
    (
        # the interrupt is ignored (or its reply lost): the grace timer stops the kernel
        "chunk prints 2 MB and ignores the interrupt",
        lambda p: replace(
            p,
            PMD,
            "print(scale(21))",
            "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN);"
            " print('x' * 2_000_000); time.sleep(600)",
        ),
        f"{PMD}:30",
        "chunk line 30 stopped: printed more than 1 MB",
    ),
    (
        "chunk prints NUL",
        lambda p: replace(p, PMD, "print(scale(21))", "print('a\\0b')"),
        f"{PMD}:30",
        "printed the control character '\\x00'",
    ),
    (
        "stray posts/notes.md",
        lambda p: write(p, "posts/notes.md", "my notes\n"),
        "posts/notes.md",
        "not written by the build, and no source writes it",
    ),
    (
        "unknown palette class",
        lambda p: replace(p, PMD, "class A hfBlue", "class A hfRed"),
        f"{PMD}:65",
        "class uses class 'hfRed', not a palette class",
    ),
]


def freeze_output_with_escape(p: Project) -> None:
    path = p.root / "src_literate/_freeze/sample-post.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["outputs"][2]["outputs"][0]["text"] = "42\x1b[31m\n"
    path.write_text(json.dumps(data), encoding="utf-8")


def folder_for_file(rel: str):
    def damage(p: Project) -> None:
        (p.root / rel).unlink()
        (p.root / rel).mkdir()

    return damage


# fifteen more that a careless author or a hostile pull request would produce
EXTRA = [
    (
        "duplicate front matter key",
        lambda p: replace(p, PMD, "slug: sample-post\n", "slug: sample-post\nslug: other\n"),
        f"{PMD}:4",
        "not valid YAML: duplicate key 'slug'",
    ),
    (
        "title with a newline",
        lambda p: replace(p, PMD, "title: 样例文章", "title: |\n  样例\n  文章"),
        f"{PMD}:2",
        "title must be one line of text",
    ),
    (
        "empty tag",
        lambda p: replace(p, PMD, "tags: [sample]", 'tags: [sample, ""]'),
        f"{PMD}:5",
        "tags must be a list of one-line strings",
    ),
    (
        "date 2026-02-30",
        lambda p: replace(p, PMD, "date: 2026-12-02", "date: 2026-02-30"),
        f"{PMD}:4",
        "date '2026-02-30' is not a real day",
    ),
    (
        "series source escapes",
        lambda p: replace(p, SERIES, "source: src_literate/sample.pmd", "source: ../../x.pmd"),
        f"{SERIES}:6",
        "source must be src_literate/<name>.pmd",
    ),
    (
        "series slug twice",
        lambda p: replace(
            p,
            SERIES,
            "glossary:",
            "  - slug: earlier-post\n    title: x\n    url: /posts/x/\nglossary:",
        ),
        f"{SERIES}:9",
        "slug 'earlier-post' is listed twice",
    ),
    (
        "series key typo",
        lambda p: replace(
            p,
            SERIES,
            "url: /posts/earlier-post/",
            "url: /posts/earlier-post/\n    palceholder: true",
        ),
        f"{SERIES}:3",
        "unknown key 'palceholder'",
    ),
    (
        "source name with a space",
        lambda p: (p.root / PMD).rename(p.root / "src_literate/my post.pmd"),
        "src_literate/my post.pmd",
        "name a source with letters, digits",
    ),
    (
        "results nested deep",
        lambda p: write(p, "src_literate/results/x.json", "[" * 10**5 + "]" * 10**5),
        "src_literate/results/x.json",
        "nested too deeply",
    ),
    (
        "freeze is a folder",
        folder_for_file("src_literate/_freeze/sample-post.json"),
        "src_literate/_freeze/sample-post.json",
        "cannot read: Is a directory",
    ),
    (
        "a folder where a post goes",
        folder_for_file("posts/sample-post.md"),
        "posts/sample-post.md",
        "is in the way of an output: it is not a file",
    ),
    (
        "freeze output hand-edited",
        freeze_output_with_escape,
        "src_literate/_freeze/sample-post.json",
        "output of chunk 'line 30' holds a control character",
    ),
    (
        "timeout=True",
        lambda p: replace(
            p,
            PMD,
            "```python\nfrom qwen3_fusion.toy",
            "```python, timeout=True\nfrom qwen3_fusion.toy",
        ),
        f"{PMD}:30",
        "chunk option 'timeout' must be an integer",
    ),
    (
        "chunk reads stdin",
        lambda p: replace(p, PMD, "print(scale(21))", "input()"),
        f"{PMD}:33",
        "chunk line 30 raised StdinNotImplementedError",
    ),
    (
        "chunk prints ANSI colours",
        lambda p: replace(p, PMD, "print(scale(21))", "print('\\x1b[31mred')"),
        f"{PMD}:30",
        "printed the control character '\\x1b'",
    ),
    (
        "chunk prints forever",
        lambda p: replace(p, PMD, "print(scale(21))", "while True:\n    print('x' * 100)"),
        f"{PMD}:30",
        "chunk line 30 stopped: printed more than 1 MB",
    ),
]


@pytest.mark.parametrize("case,damage,where,says", BAD + EXTRA, ids=[b[0] for b in BAD + EXTRA])
def test_bad_input_is_one_line_and_changes_nothing(project, case, damage, where, says):
    damage(project)
    message = fails_cleanly(project)
    assert message.startswith(f"{where}: ") and says in message, message


def test_refresh_of_an_unknown_slug_is_an_error(project):
    assert "--refresh t-pots: no source has this slug (slugs: sample-post)" in fails_cleanly(
        project, refresh={"t-pots"}
    )


def test_a_byte_order_mark_is_no_part_of_the_source(project):
    path = project.root / PMD
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    write_outputs(project, build_all(project, execute_stale=True))
    assert run_checks(project, browser=False, reader=False)[0] == []


@pytest.mark.parametrize(
    "code,how",
    [
        ("import os\nos._exit(0)", "exit code 0"),
        ("import ctypes\nctypes.string_at(0)", "signal SIGSEGV"),
    ],
    ids=["os._exit", "segfault"],
)
def test_a_dead_kernel_is_named_at_once(project, code, how):
    replace(project, PMD, "print(scale(21))", code)
    start = time.monotonic()
    message = fails_cleanly(project)
    assert (
        message == f"{PMD}:30: chunk line 30 stopped: the kernel process died ({how}) while it ran"
    )
    assert time.monotonic() - start < 60  # not the 300 s chunk limit


def test_a_chunk_cannot_overwrite_posts_through_its_working_folder(project):
    replace(
        project,
        PMD,
        "print(scale(21))",
        "from pathlib import Path\nPath('posts').mkdir(exist_ok=True)\n"
        "Path('posts/sample-post.md').write_text('x')\nprint(Path.cwd().name)",
    )
    build_all(project, execute_stale=True, refresh=set())
    assert (project.root / "posts/sample-post.md").read_text(encoding="utf-8") != "x"


def test_a_full_disk_or_a_read_only_folder_writes_nothing(project, monkeypatch):
    replace(project, PMD, "title: 样例文章", "title: 新的标题")  # the post and README change
    outputs = build_all(project, execute_stale=True)
    before = snapshot(project.root)
    calls = []

    def full(f, data):
        calls.append(1)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        f.write(data)

    monkeypatch.setattr(fsutil, "_write", full)
    with pytest.raises(BuildError, match=r"^README.md: cannot write: No space left on device$"):
        write_outputs(project, outputs)
    monkeypatch.setattr(
        fsutil,
        "_temp_sibling",
        lambda p: (_ for _ in ()).throw(PermissionError(13, "Permission denied")),
    )
    with pytest.raises(BuildError, match=r"^posts: cannot write: Permission denied$"):
        write_outputs(project, outputs)
    assert snapshot(project.root) == before and leftovers(project.root) == []


@pytest.mark.skipif(not Path("node_modules/mermaid").exists(), reason="npm ci not run")
def test_posts_fails_on_a_mermaid_syntax_error_at_the_source_line(project):
    replace(project, PMD, "  A[输入] --> B[输出]", "  A[输入] --> B[输出]\n  B -->")
    outputs = build_all(project, execute_stale=True)
    with pytest.raises(BuildError) as info:
        verify_diagrams(outputs)
    message = str(info.value)
    assert message.startswith(
        f"{PMD}:66: mermaid cannot draw this diagram: Parse error: Expecting "
    )
    assert "got 'CLASS'" in message and "\n" not in message


def test_temporaries_a_killed_build_left_are_listed_by_check_and_removed_by_posts(project):
    stray = project.root / "posts/.sample-post.md.ab1_cd2e.tmp"
    stray.write_text("half a post", encoding="utf-8")
    problems, _ = run_checks(project, browser=False, reader=False)
    assert problems == [
        "posts/.sample-post.md.ab1_cd2e.tmp: a temporary file a killed build left;"
        " `python build.py posts` removes it"
    ]
    changed = write_outputs(project, build_all(project, execute_stale=True))
    assert changed == ["removed posts/.sample-post.md.ab1_cd2e.tmp"] and not stray.exists()
