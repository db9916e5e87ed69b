"""The literate build on the sample project in tests/sample: tangle, weave, cache, errors, check."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from buildlib import weave
from buildlib.backlinks import END, START, related_section, rewrite_blog
from buildlib.checks import prose_length, run_checks
from buildlib.errors import BuildError
from buildlib.pipeline import Project, build_all, tangle_project, write_outputs

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "tests" / "sample"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every output file the build manages, with its bytes."""
    files = {}
    for base in ("generated", "posts", "src_literate/_freeze"):
        for p in sorted((root / base).rglob("*")) if (root / base).exists() else []:
            if p.is_file() and "__pycache__" not in p.parts:
                files[p.relative_to(root).as_posix()] = p.read_bytes()
    files["README.md"] = (root / "README.md").read_bytes()
    return files


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The sample project, built once (its freeze is reused by the other tests)."""
    root = tmp_path_factory.mktemp("sample")
    shutil.copytree(SAMPLE, root, dirs_exist_ok=True)
    shutil.copytree(REPO / "templates", root / "templates")
    write_outputs(Project(root), build_all(Project(root), execute_stale=True))
    return root


@pytest.fixture
def project(built, tmp_path) -> Project:
    """A fresh copy of the built sample, freeze included."""
    root = tmp_path / "p"
    shutil.copytree(built, root)
    return Project(root)


def edit(project: Project, old: str, new: str, path="src_literate/sample.pmd") -> None:
    p = project.root / path
    text = p.read_text(encoding="utf-8")
    assert old in text, old
    p.write_text(text.replace(old, new, 1), encoding="utf-8")


def line_of(project: Project, text: str, path="src_literate/sample.pmd") -> int:
    """1-based line of the first line containing `text`."""
    lines = (project.root / path).read_text(encoding="utf-8").split("\n")
    return next(k for k, ln in enumerate(lines, 1) if text in ln)


def test_tangle_writes_modules_with_banner_docstring_all_and_named_markers(built):
    toy = (built / "generated/qwen3_fusion/toy.py").read_text(encoding="utf-8")
    assert toy.startswith("# GENERATED FILE - DO NOT EDIT.\n# Tangled from src_literate/sample.pmd")
    assert '"""qwen3_fusion.toy: clip, offset, scale.\n' in toy  # what it holds
    assert "# %% src_literate/sample.pmd::scale\n" in toy  # marker keyed by chunk name
    assert ":18" not in toy  # no line numbers: prose edits do not touch the module
    # __all__ comes before the code, public names only, export=False names left out
    assert toy.index('__all__ = [\n    "clip",\n    "offset",\n    "scale",\n]') < toy.index(
        "def scale"
    )
    assert "def helper_kept_private" in toy and '"helper_kept_private"' not in toy
    assert toy.index("def scale") < toy.index("def offset")  # document order
    assert "print(scale(21))" not in toy  # an example chunk is not tangled
    init = (built / "generated/qwen3_fusion/__init__.py").read_text(encoding="utf-8")
    assert "qwen3_fusion.toy" in init and "import" not in init.split('"""')[-1]


def test_prose_edits_leave_the_package_and_the_freeze_alone(project):
    edit(project, "一个 [[kernel launch]] 的样例", "新增一行。\n\n一个 [[kernel launch]] 的样例")
    changed = write_outputs(project, build_all(project, execute_stale=True))
    assert changed == ["wrote posts/sample-post.md"]


def test_tangled_module_imports_and_runs(built):
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from qwen3_fusion.toy import scale, offset; print(offset(scale(4)))",
        ],
        env={"PYTHONPATH": str(built / "generated")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "9"


def test_post_shows_folds_and_hides_chunks(built):
    post = (built / "posts/sample-post.md").read_text(encoding="utf-8")
    assert "```python\nprint(scale(21))\n```\n\n```text\n42\n```" in post
    assert "from qwen3_fusion.toy import" not in post  # the reader already defined scale
    assert "<details>\n<summary>折叠起来的辅助函数 clip</summary>\n\n```python\ndef clip(" in post
    assert "def double" not in post  # hidden: tangled and executed, not shown
    # the reader never saw hidden_toy's code, so the import stays
    assert "from qwen3_fusion.hidden_toy import double\n\nprint(double(clip(21)))" in post
    assert "```text\n42\n```" in post.split("print(double(clip(21)))")[1]
    assert "```\n" not in post.replace("```python\n", "").replace("```text\n", "").replace(
        "```mermaid\n", ""
    ).replace("\n```\n", "\n")  # no fence opens without a language


def test_post_is_a_hugo_page(built):
    post = (built / "posts/sample-post.md").read_text(encoding="utf-8")
    front, body = post.split("\n---\n", 1)
    assert front == (
        '---\ntitle: "样例文章"\ndate: 2026-12-02\nslug: sample-post\ndescription: "样例"\n'
        'tags: ["sample"]\nseries: ["样例"]\nweight: 2'
    )
    assert "<!-- " not in body.split("<!--more-->")[0]  # nothing about how the page was made
    assert "\n# " not in body  # the title is given once, in the front matter
    lede, rest = body.split("<!--more-->", 1)
    assert "样例的引言。" in lede and "## " not in lede and "> **版本**" in rest
    assert "| [§一 模块与示例](#一-模块与示例) | — |" in post  # §零 table from the headings
    assert "需要 PyTorch 2.3+、Triton 2.2+" in post
    assert "1. [前一篇](/posts/earlier-post/)\n2. **样例文章**（本文）" in post
    # glossary: a footnote on the first use only, with its gloss (without one: see the placeholder test)
    assert post.count("kernel launch[^g1]") == 1 and "再次提到 kernel launch 时" in post
    assert (
        "[^g1]: kernel launch：CPU 发起一次 kernel 的固定开销。详见本系列《前一篇》的“第三节”"
        "（[链接](/posts/earlier-post/#launch)）。"
        in post
    )
    # the palette is added to each diagram
    assert "%%{init:" in post and "classDef hfBlue" in post


def test_placeholder_sister_posts_are_plain_titles_and_check_warns(project):
    edit(
        project,
        "    url: /posts/earlier-post/\n",
        "    url: /posts/earlier-post/\n    placeholder: true\n",
        path="src_literate/series.yaml",
    )
    edit(project, "    gloss: CPU 发起一次 kernel 的固定开销\n", "", path="src_literate/series.yaml")
    edit(project, "的样例；", "的样例（[前一篇](/posts/earlier-post/)）；")
    write_outputs(project, build_all(project, execute_stale=True))
    post = (project.root / "posts/sample-post.md").read_text(encoding="utf-8")
    assert "1. 前一篇\n" in post and "的样例（前一篇）；" in post
    assert "[^g1]: kernel launch：见本系列《前一篇》的“第三节”。" in post  # no gloss, no link
    problems, report = run_checks(project, browser=False, reader=False)
    assert problems == []
    assert any(r.startswith("warning: src_literate/series.yaml: 前一篇") for r in report)


def test_repository_link_is_plain_text_while_a_placeholder(project):
    edit(
        project,
        "glossary:",
        "repository:\n  url: https://github.com/example/code\n  placeholder: true\nglossary:",
        path="src_literate/series.yaml",
    )
    edit(project, "的样例；", "的样例（[配套仓库](repo:)）；")
    write_outputs(project, build_all(project, execute_stale=True))
    post = (project.root / "posts/sample-post.md").read_text(encoding="utf-8")
    assert "的样例（配套仓库）；" in post
    problems, report = run_checks(project, browser=False, reader=False)
    assert problems == []
    assert any(
        "repository URL https://github.com/example/code is a placeholder" in r for r in report
    )
    edit(project, "  placeholder: true\nglossary:", "glossary:", path="src_literate/series.yaml")
    write_outputs(project, build_all(project, execute_stale=True))
    post = (project.root / "posts/sample-post.md").read_text(encoding="utf-8")
    assert "的样例（[配套仓库](https://github.com/example/code)）；" in post


def test_repository_url_must_be_https(project):
    edit(
        project,
        "glossary:",
        "repository:\n  url: github.com/example/code\nglossary:",
        path="src_literate/series.yaml",
    )
    with pytest.raises(BuildError, match="repository: url must be an https URL"):
        build_all(project, execute_stale=True)


def test_links_between_our_posts_are_relative_files(project):
    other = project.root / "src_literate/zz_other.pmd"
    text = (project.root / "src_literate/sample.pmd").read_text(encoding="utf-8")
    text = (
        text.replace("slug: sample-post", "slug: other-post")
        .replace('module="toy"', 'module="toy2"')
        .replace('module="hidden_toy"', 'module="hidden_toy2"')
        .replace("qwen3_fusion.hidden_toy ", "qwen3_fusion.hidden_toy2 ")
    )
    text = text.replace("的样例；", "的样例（见[样例文章](/posts/sample-post/#一-模块与示例)）；")
    other.write_text(text, encoding="utf-8")
    edit(
        project,
        "glossary:",
        "  - slug: other-post\n    source: src_literate/zz_other.pmd\n    url: /posts/other-post/\nglossary:",
        path="src_literate/series.yaml",
    )
    write_outputs(project, build_all(project, execute_stale=True))
    post = (project.root / "posts/other-post.md").read_text(encoding="utf-8")
    # GitHub resolves the file; Hugo's embedded link render hook resolves it to the page
    assert "见[样例文章](sample-post.md#一-模块与示例)" in post
    assert "2. [样例文章](sample-post.md)" in post
    problems, _ = run_checks(project, browser=False, reader=False)
    assert problems == []


def test_readme_index(built):
    readme = (built / "README.md").read_text(encoding="utf-8")
    assert "| 2 | 样例文章 | [`src_literate/sample.pmd`](src_literate/sample.pmd) |" in readme


def test_weaving_twice_gives_the_same_bytes_from_the_freeze_or_executing(project):
    before = snapshot(project.root)
    write_outputs(project, build_all(project, execute_stale=True))
    assert snapshot(project.root) == before
    write_outputs(project, build_all(project, execute_stale=True, refresh=set()))
    assert snapshot(project.root) == before


@pytest.fixture
def no_execution(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("executed although frozen")

    monkeypatch.setattr(weave, "run_chunks", boom)


def test_a_current_freeze_is_not_executed_again(project, no_execution):
    build_all(project, execute_stale=True)
    build_all(project)  # check's path
    edit(project, "print(scale(21))", "print(scale(22))")
    with pytest.raises(AssertionError, match="executed although frozen"):
        build_all(project, execute_stale=True)
    with pytest.raises(AssertionError, match="executed although frozen"):
        build_all(project, execute_stale=True, refresh={"sample-post"})


def test_refresh_executes_on_purpose(project, monkeypatch):
    ran = []
    real = weave.run_chunks
    monkeypatch.setattr(
        weave, "run_chunks", lambda src, *a, **k: ran.append(src.slug) or real(src, *a, **k)
    )
    with pytest.raises(BuildError, match="--refresh other-slug: no source has this slug"):
        build_all(project, execute_stale=True, refresh={"other-slug"})
    assert ran == []
    build_all(project, execute_stale=True, refresh={"sample-post"})
    assert ran == ["sample-post"]


STALE = [
    # (what to change, how, the input the error must name)
    ("print(scale(21))", "print(scale(22))", "chunk line 30 changed"),
    ("    return min(x, hi)", "    return max(x, hi)", "chunk clip changed"),
    ("    return 2 * x", "    return 3 * x", "chunk double changed"),
]


@pytest.mark.parametrize("old,new,why", STALE, ids=[s[2] for s in STALE])
def test_check_names_the_input_that_made_a_freeze_stale(project, no_execution, old, new, why):
    edit(project, old, new)
    problems, _ = run_checks(project, browser=False, reader=False)
    assert problems[0].startswith("src_literate/_freeze/sample-post.json: frozen outputs of ")
    assert why in problems[0]
    # and every other problem is listed too: a module chunk's edit leaves generated/ stale
    assert all(p.startswith("generated/") for p in problems[1:])


def test_a_new_library_version_makes_the_freeze_stale(project, no_execution, monkeypatch):
    from buildlib import freeze

    monkeypatch.setattr(
        freeze, "package_versions", lambda names: {"torch": "9.9", "triton": "3.9.0"}
    )
    problems, _ = run_checks(project, browser=False, reader=False)
    assert len(problems) == 1 and "torch " in problems[0] and "-> 9.9" in problems[0]


def test_a_hanging_chunk_is_stopped_with_its_location_and_nothing_is_written(project):
    edit(
        project,
        "```python\nfrom qwen3_fusion.toy import scale",
        "```python, timeout=2\nimport time\ntime.sleep(60)\nfrom qwen3_fusion.toy import scale",
    )
    before = snapshot(project.root)
    with pytest.raises(BuildError) as info:
        write_outputs(project, build_all(project, execute_stale=True))
    assert str(info.value) == (
        "src_literate/sample.pmd:30: chunk line 30 stopped: ran past its 2 s limit"
        " (raise it with timeout=<seconds>)"
    )
    assert snapshot(project.root) == before


BAD_INPUTS = [
    # (old, new, message part, the text whose line the error names)
    (
        '```python, name="scale", module="toy"',
        '```python name="scale"',
        "malformed chunk header",
        None,
    ),
    (
        '```python, name="scale", module="toy"',
        '```python, name="scale", modul="toy"',
        "unknown chunk option 'modul'",
        None,
    ),
    (
        '```python, name="scale", module="toy"',
        '```python, name="scale", module=toy',
        "must be a literal",
        None,
    ),
    (
        '```python, name="scale", module="toy"',
        '```python, name="scale", module="../toy"',
        "escapes generated/",
        None,
    ),
    ('```python, name="scale", module="toy"', '```python, module="toy"', "needs name=", None),
    (
        '```python, name="offset", module="toy"',
        '```python, name="scale", module="toy"',
        "already used at line 18",
        24,
    ),
    (
        'visibility="folded", summary="折叠起来的辅助函数 clip"',
        'visibility="collapsed"',
        "visibility 'collapsed' is not one of shown, folded, hidden",
        None,
    ),
    (
        'visibility="folded", summary="折叠起来的辅助函数 clip"',
        'visibility="folded"',
        "a folded chunk needs summary=",
        None,
    ),
    (
        "```python\nfrom qwen3_fusion.toy",
        "```python, timeout=0\nfrom qwen3_fusion.toy",
        "timeout must be a positive",
        None,
    ),
    (
        "    return x + b",
        "    return x +",
        "chunk is not valid Python: invalid syntax",
        "    return x +",
    ),
    (
        "再次提到 [[kernel launch]]",
        "再次提到 [[warp 调度]]",
        "unknown glossary term 'warp 调度'",
        None,
    ),
    ("print(scale(21))", "print(scale(21) / 0)", "chunk line 30 raised ZeroDivisionError", 33),
    ("```mermaid", "```", "fenced block has no language", 62),
    ("slug: sample-post", "slug: no-such-post", "not in src_literate/series.yaml", "---"),
    ("title: 样例文章", "title: " + "长" * 31, "keep it to 30", "---"),
    (
        "tags: [sample]",
        "tags: [sample]\ncolour: red",
        "unknown front matter key 'colour'",
        "colour",
    ),
    ("<!--more-->", "", "must end with one <!--more--> line", "---"),
    (
        "target_chars: 100",
        "target_chars: 100\ncode_budget: lots",
        "code_budget must be a positive",
        "code_budget",
    ),
    (
        "target_chars: 100",
        'target_chars: 100\nmin_prose_share: {"§一": 45}',
        "min_prose_share must map chapter title prefixes",
        "min_prose_share",
    ),
]


@pytest.mark.parametrize("old,new,message,where", BAD_INPUTS, ids=[b[2][:28] for b in BAD_INPUTS])
def test_bad_input_gives_one_located_error_and_writes_nothing(project, old, new, message, where):
    edit(project, old, new)
    if isinstance(where, int):
        line = where
    else:
        line = line_of(project, (where or new).split("\n")[0]) if (where or new) else 1
    before = snapshot(project.root)
    with pytest.raises(BuildError) as info:
        write_outputs(project, build_all(project, execute_stale=True))
    assert message in str(info.value)
    assert str(info.value).startswith(f"src_literate/sample.pmd:{line}: ") or (
        str(info.value).startswith("src_literate/sample.pmd: ") and where == "---"
    )
    assert snapshot(project.root) == before


def test_missing_template_variable_names_the_template(project):
    edit(project, "{{ series }}系列", "{{ no_such_value }}系列", path="templates/related.md.j2")
    before = snapshot(project.root)
    with pytest.raises(BuildError, match=r"templates/related.md.j2:3: template variable missing"):
        write_outputs(project, build_all(project))
    assert snapshot(project.root) == before


def test_two_sources_writing_one_module(project):
    other = project.root / "src_literate/zz_other.pmd"
    text = (project.root / "src_literate/sample.pmd").read_text(encoding="utf-8")
    other.write_text(text.replace("slug: sample-post", "slug: earlier-post"), encoding="utf-8")
    with pytest.raises(BuildError, match=r"zz_other.pmd:18: module 'toy' is already written by"):
        tangle_project(project)


def test_check_passes_on_a_fresh_build_and_reports_lengths(project, no_execution):
    # diagrams in Chromium are tested in test_mermaid.py, which skips where mermaid is absent
    problems, report = run_checks(project, browser=False)
    assert problems == []
    assert report == [
        "posts/sample-post.md: prose 76 (target ~100, 76%), python shown 13, folded 3"
    ]


def test_check_fails_a_post_over_its_code_budget(project):
    edit(project, "target_chars: 100", "target_chars: 100\ncode_budget: 12")
    write_outputs(project, build_all(project, execute_stale=True))
    problems, _ = run_checks(project, browser=False, reader=False)
    assert problems == ["posts/sample-post.md: shows 13 python lines, over its code_budget of 12"]


def test_check_fails_a_chapter_under_its_min_prose_share(project):
    edit(project, "target_chars: 100", 'target_chars: 100\nmin_prose_share: {"§一": 0.99}')
    write_outputs(project, build_all(project, execute_stale=True))
    problems, _ = run_checks(project, browser=False, reader=False)
    assert len(problems) == 1 and "of the prose, under 99%" in problems[0], problems
    edit(project, '{"§一": 0.99}', '{"§一": 0.01}')
    write_outputs(project, build_all(project, execute_stale=True))
    assert run_checks(project, browser=False, reader=False)[0] == []


def test_a_comment_in_code_is_no_heading_for_links(project):
    edit(project, "的样例；", "的样例（见 [说明](#a-comment)）；")
    edit(project, "def scale(x, k=2):", "# A comment\ndef scale(x, k=2):")
    write_outputs(project, build_all(project, execute_stale=True))
    problems, _ = run_checks(project, browser=False, reader=False)
    post = (project.root / "posts/sample-post.md").read_text(encoding="utf-8").split("\n")
    k = next(k for k, ln in enumerate(post, 1) if "#a-comment" in ln)
    assert problems == [f"posts/sample-post.md:{k}: link to #a-comment matches no heading"]


def test_check_finds_hand_edits_and_broken_conventions(project):
    (project.root / "generated/qwen3_fusion/toy.py").write_text("x = 1\n", encoding="utf-8")
    edit(project, "- [pytest](https://docs.pytest.org/)\n", "")
    edit(project, "的样例；", "的样例（见 [下文](#没有这一节)）；")
    unpinned = "https://github.com/huggingface/transformers/blob/main/src/transformers/models/qwen3/modeling_qwen3.py"
    tutorial = "https://github.com/triton-lang/triton/blob/main/python/tutorials/05-layer-norm.py"
    edit(project, "再次提到", f"读 [Qwen3 源码]({unpinned}) 与 [教程]({tutorial}) 再次提到")
    problems, _ = run_checks(project, browser=False, reader=False)
    text = "\n".join(problems)
    assert "generated/qwen3_fusion/toy.py: differs from its source" in text
    assert "posts/sample-post.md: differs from its source" in text
    assert "has 2 references (want 3 to 5)" in text
    assert "link to #没有这一节 matches no heading" in text
    assert f"{unpinned} follows a branch; pin a version tag" in text
    assert f"{tutorial} follows a branch; pin a version tag" in text  # any repository's branch


def test_a_diagram_mermaid_would_pass_silently_fails_at_its_source_line(project):
    edit(project, "class A hfBlue", "class A hfBlu\n  style Z fill:#fff")
    line = line_of(project, "class A hfBlu")
    before = snapshot(project.root)
    with pytest.raises(BuildError) as info:
        write_outputs(project, build_all(project, execute_stale=True))
    assert str(info.value).startswith(f"src_literate/sample.pmd:{line}: class uses class 'hfBlu'")
    assert snapshot(project.root) == before
    problems, _ = run_checks(project, browser=False, reader=False)
    assert problems == [str(info.value)]


def test_check_runs_the_posts_python_blocks_like_a_reader(project):
    post = project.root / "posts/sample-post.md"
    post.write_text(
        post.read_text(encoding="utf-8").replace("print(scale(21))", "print(scael(21))")
    )
    from buildlib.checks import check_reader

    problems = check_reader(project, "posts/sample-post.md", post.read_text(encoding="utf-8"))
    assert len(problems) == 1 and "NameError" in problems[0]
    assert problems[0].startswith("posts/sample-post.md:")


def test_reader_check_compares_each_blocks_output_with_the_post(project):
    """What a reader prints must be what the post shows, even where a hidden chunk made the weave's
    output come true (a reader never runs hidden chunks)."""
    post = project.root / "posts/sample-post.md"
    text = post.read_text(encoding="utf-8")
    from buildlib.checks import check_reader

    assert "print(scale(21))\n```\n\n```text\n42\n```" in text
    assert check_reader(project, "posts/sample-post.md", text) == []
    wrong = text.replace("```text\n42\n```", "```text\n43\n```", 1)
    problems = check_reader(project, "posts/sample-post.md", wrong)
    assert len(problems) == 1 and "prints '42' where the post shows '43'" in problems[0]
    lines = wrong.split("\n")
    at = lines.index("print(scale(21))")
    line = max(i for i in range(at) if lines[i] == "```python") + 1  # the block's opening fence
    assert problems[0].startswith(f"posts/sample-post.md:{line}:")


def test_prose_length_counts_cjk_and_latin_words_not_code():
    text = "## §一 标题\n\n中文四字 and two words\n\n```python\nx = '很多中文字'\n```\n\n## 相关文章\n\n导航"
    assert prose_length(text) == len("一标题") + 4 + 3  # "§" counts as neither; code is left out
    files = '<details class="data-sources">\n<summary>数据文件</summary>\n\n- 表：`a.json`\n\n</details>\n\n'
    assert prose_length(text.replace("## 相关文章", files + "## 相关文章")) == prose_length(text)  # file lists
    other = "<details>\n<summary>数据文件</summary>\n\n</details>\n\n"
    assert prose_length(text.replace("## 相关文章", other + "## 相关文章")) > prose_length(text)  # other folds count


def test_backlinks_rewrite_only_the_marked_section(project, tmp_path):
    blog = tmp_path / "blog"
    blog.mkdir()
    earlier = blog / "earlier-post.md"
    earlier.write_text(f"# 前一篇\n\n正文\n\n{START}\nold\n{END}\n\n尾部\n", encoding="utf-8")
    (blog / "unrelated.md").write_text("no markers\n", encoding="utf-8")
    assert rewrite_blog(project, blog) == [earlier]
    text = earlier.read_text(encoding="utf-8")
    assert text.startswith("# 前一篇\n\n正文\n\n" + START) and text.endswith(END + "\n\n尾部\n")
    assert "1. **前一篇**（本文）" in text and "2. [样例文章](/posts/sample-post/)" in text
    assert rewrite_blog(project, blog) == []  # idempotent
    assert related_section(project, None).startswith(START)


def test_cli_bench_needs_a_gpu_and_errors_are_one_line(tmp_path):
    res = subprocess.run(
        [sys.executable, str(REPO / "build.py"), "bench", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    # the options reach the bench module (argparse does not reject them); no GPU here
    assert res.returncode == 3 and "needs a CUDA GPU" in res.stderr  # 3: environment missing
    assert "unrecognized arguments" not in res.stderr
    res = subprocess.run(
        [sys.executable, str(REPO / "build.py"), "preview", "no-such-slug"],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: ")


def test_outputs_get_the_mode_that_open_would_give(tmp_path):
    from buildlib.fsutil import Tree, commit, write_atomic

    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.md", "a\n")
        commit(tmp_path, [Tree(tmp_path / "pkg", {"m.py": "x = 1\n"}, ".py", "")])
    finally:
        os.umask(old)
    assert (tmp_path / "a.md").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "pkg" / "m.py").stat().st_mode & 0o777 == 0o644


def test_check_wants_results_files_to_name_gpu_versions_and_date(project):
    results = project.root / "src_literate" / "results"
    results.mkdir(exist_ok=True)
    meta = {"gpu": "NVIDIA H200", "driver": "580", "torch": "2.11", "triton": "3.6"}
    (results / "h200.json").write_text(json.dumps({"meta": meta}), encoding="utf-8")
    (results / "h200_log.txt").write_text("# gpu: NVIDIA H200\nplain output\n", encoding="utf-8")
    problems, _ = run_checks(project, browser=False, reader=False)
    assert (
        "src_literate/results/h200.json: does not name its transformers, date, command"
        " (results need them)" in problems
    )
    assert any(
        p.startswith("src_literate/results/h200_log.txt: does not name its driver")
        for p in problems
    )


def test_gpu_run_line_spans_a_merged_files_date_range():
    from buildlib.render import gpu_run_lines

    meta = {"gpu": "NVIDIA H200", "torch": "2.11.0", "triton": "3.6.0", "transformers": "5.17.0"}
    results = {
        "one": {"meta": {**meta, "date": "2026-12-03"}},
        "merged": {"meta": {**meta, "date": "2026-12-03 to 2026-12-05"}},
        "unread": {"meta": {**meta, "date": "2026-11-01"}},
        "cost_model": {"meta": {**meta, "gpu": "h200", "gpu_name": "NVIDIA H100", "date": "2026-12-04"}},
    }
    lines = gpu_run_lines(results, {"one.json", "merged.json", "cost_model.json"})
    by_gpu = {ln["gpu"]: ln["date"] for ln in lines}
    assert by_gpu == {"NVIDIA H200": "2026-12-03 至 2026-12-05", "NVIDIA H100": "2026-12-04"}
    # the setup most files come from is named first; the others are side runs with their file count
    assert [(ln["gpu"], ln["files"]) for ln in lines] == [("NVIDIA H200", 2), ("NVIDIA H100", 1)]


def test_a_post_dated_before_its_newest_gpu_result_fails_at_its_date_line(project):
    results = project.root / "src_literate" / "results"
    results.mkdir(parents=True, exist_ok=True)
    meta = {"gpu": "NVIDIA H200", "torch": "2.11.0", "triton": "3.6.0"}
    meta |= {"transformers": "5.17.0", "date": "2026-12-05"}
    (results / "toy_gpu.json").write_text(json.dumps({"meta": meta, "ms": 1.0}), encoding="utf-8")
    read = 'Path("src_literate/results/toy_gpu.json").read_text(encoding="utf-8")'
    edit(
        project,
        "from qwen3_fusion.toy import scale\n",
        "import json\nfrom pathlib import Path\n\nfrom qwen3_fusion.toy import scale\n\n"
        f'gpu_ms = json.loads({read})["ms"]\n',
    )
    before = snapshot(project.root)
    with pytest.raises(BuildError) as info:
        write_outputs(project, build_all(project, execute_stale=True))
    assert str(info.value).startswith(f"src_literate/sample.pmd:{line_of(project, 'date: ')}: ")
    assert "before the newest GPU result the post reads (2026-12-05)" in str(info.value)
    assert snapshot(project.root) == before
    edit(project, "date: 2026-12-02", "date: 2026-12-05")  # dated the day of its figures: it builds
    write_outputs(project, build_all(project, execute_stale=True))
    assert "NVIDIA H200" in (project.root / "posts" / "sample-post.md").read_text(encoding="utf-8")
