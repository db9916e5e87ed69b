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
    for base in ("generated", "posts"):
        for p in sorted((root / base).rglob("*")) if (root / base).exists() else []:
            if p.is_file() and "__pycache__" not in p.parts:
                files[p.relative_to(root).as_posix()] = p.read_bytes()
    files["README.md"] = (root / "README.md").read_bytes()
    return files


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The sample project, built once (its .cache is reused by the other tests)."""
    root = tmp_path_factory.mktemp("sample")
    shutil.copytree(SAMPLE, root, dirs_exist_ok=True)
    shutil.copytree(REPO / "templates", root / "templates")
    write_outputs(Project(root), build_all(Project(root)))
    return root


@pytest.fixture
def project(built, tmp_path) -> Project:
    """A fresh copy of the built sample, cache included."""
    root = tmp_path / "p"
    shutil.copytree(built, root)
    return Project(root)


def edit(project: Project, old: str, new: str, path="src_literate/sample.pmd") -> None:
    p = project.root / path
    text = p.read_text(encoding="utf-8")
    assert old in text, old
    p.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_tangle_writes_modules_with_banner_markers_and_all(built):
    toy = (built / "generated/qwen3_fusion/toy.py").read_text(encoding="utf-8")
    assert toy.startswith("# GENERATED FILE - DO NOT EDIT.\n# Tangled from src_literate/sample.pmd")
    assert "# --- src_literate/sample.pmd:13 (scale) ---" in toy
    assert toy.index("def scale") < toy.index("def offset")  # document order
    assert '__all__ = [\n    "offset",\n    "scale",\n]' in toy
    assert "print(scale(21))" not in toy  # an example chunk is not tangled
    init = (built / "generated/qwen3_fusion/__init__.py").read_text(encoding="utf-8")
    assert "qwen3_fusion.toy" in init and "import" not in init.split('"""')[-1]


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


def test_post_has_tagged_fences_output_and_no_own_imports(built):
    post = (built / "posts/sample-post.md").read_text(encoding="utf-8")
    assert "```python\nprint(scale(21))\n```\n\n```text\n42\n```" in post
    assert "from qwen3_fusion.toy import" not in post  # the reader already defined scale
    assert "```\n" not in post.replace("```python\n", "").replace("```text\n", "").replace(
        "```mermaid\n", ""
    ).replace("\n```\n", "\n")  # no fence opens without a language


def test_post_template_parts(built):
    post = (built / "posts/sample-post.md").read_text(encoding="utf-8")
    assert post.startswith('---\ntitle: "样例文章"\nslug: sample-post\ndate: 2026-12-02\n')
    assert "series: 样例\norder: 2\n" in post
    assert "| [§一 模块与示例](#一-模块与示例) | — |" in post  # §零 table from the headings
    assert "最低要求 PyTorch 2.3+、Triton 2.2+" in post
    assert "1. [前一篇](/posts/earlier-post/)\n2. **样例文章**（本文）" in post
    # glossary: a footnote on the first use only
    assert post.count("kernel launch[^g1]") == 1 and "再次提到 kernel launch 时" in post
    assert (
        "[^g1]: kernel launch：见本系列《前一篇》的“第三节”（[链接](/posts/earlier-post/#launch)）。"
        in post
    )
    # the palette is added to each diagram
    assert "%%{init:" in post and "classDef hfBlue" in post


def test_readme_index(built):
    readme = (built / "README.md").read_text(encoding="utf-8")
    assert "| 2 | 样例文章 | [`src_literate/sample.pmd`](src_literate/sample.pmd) |" in readme


def test_weaving_twice_gives_the_same_bytes_with_and_without_cache(project):
    before = snapshot(project.root)
    write_outputs(project, build_all(project, use_cache=False))
    assert snapshot(project.root) == before


def test_unchanged_source_is_not_executed_again(project, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("executed although cached")

    monkeypatch.setattr(weave, "_run_pweave", boom)
    build_all(project)  # served from the cache
    edit(project, "print(scale(21))", "print(scale(22))")
    with pytest.raises(AssertionError, match="executed although cached"):
        build_all(project)


BAD_INPUTS = [
    # (old, new, message part, line)
    (
        '```python, name="scale", module="toy"',
        '```python name="scale"',
        "malformed chunk header",
        13,
    ),
    (
        '```python, name="scale", module="toy"',
        '```python, name="scale", modul="toy"',
        "unknown chunk option 'modul'",
        13,
    ),
    (
        '```python, name="scale", module="toy"',
        '```python, name="scale", module=toy',
        "must be a literal",
        13,
    ),
    (
        '```python, name="scale", module="toy"',
        '```python, name="scale", module="../toy"',
        "escapes generated/",
        13,
    ),
    (
        '```python, name="offset", module="toy"',
        '```python, name="scale", module="toy"',
        "already used at line 13",
        19,
    ),
    ("    return x + b", "    return x +", "syntax error in module 'toy'", 22),
    (
        "再次提到 [[kernel launch]]",
        "再次提到 [[warp 调度]]",
        "unknown glossary term 'warp 调度'",
        11,
    ),
    ("print(scale(21))", "print(scale(21) / 0)", "chunk raised ZeroDivisionError", 25),
    ("```mermaid", "```", "fenced block has no language", 31),
    ("slug: sample-post", "slug: no-such-post", "not in src_literate/series.yaml", 1),
    ("title: 样例文章", "title: " + "长" * 31, "keep it to 30", 1),
    ("tags: [sample]", "tags: [sample]\ncolour: red", "unknown front matter key 'colour'", 6),
]


@pytest.mark.parametrize("old,new,message,line", BAD_INPUTS, ids=[b[2][:28] for b in BAD_INPUTS])
def test_bad_input_gives_one_located_error_and_writes_nothing(project, old, new, message, line):
    edit(project, old, new)
    before = snapshot(project.root)
    with pytest.raises(BuildError) as info:
        write_outputs(project, build_all(project))
    assert message in str(info.value)
    assert str(info.value).startswith(f"src_literate/sample.pmd:{line}: ")
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
    with pytest.raises(BuildError, match=r"zz_other.pmd:13: module 'toy' is already written by"):
        tangle_project(project)


def test_check_passes_on_a_fresh_build_and_reports_prose_length(project):
    problems, report = run_checks(project)
    assert problems == []
    assert report and report[0].startswith("prose length posts/sample-post.md: ")


def test_check_finds_hand_edits_and_broken_conventions(project):
    (project.root / "generated/qwen3_fusion/toy.py").write_text("x = 1\n", encoding="utf-8")
    edit(project, "- [pytest](https://docs.pytest.org/)\n", "")
    edit(project, "class A hfBlue", "class A hfBlu\n  style Z fill:#fff")
    edit(project, "的样例；", "的样例（见 [下文](#没有这一节)）；")
    unpinned = "https://github.com/huggingface/transformers/blob/main/src/transformers/models/qwen3/modeling_qwen3.py"
    edit(project, "再次提到", f"读 [Qwen3 源码]({unpinned}) 再次提到")
    problems, _ = run_checks(project, browser=False, reader=False)
    text = "\n".join(problems)
    assert "generated/qwen3_fusion/toy.py: differs from its source" in text
    assert "posts/sample-post.md: differs from its source" in text
    assert "has 2 references (want 3 to 5)" in text
    assert "posts/sample-post.md:48: line 4 of the diagram:" in text and "hfBlu" in text
    assert "posts/sample-post.md:48: line 5 of the diagram: style names node 'Z'" in text
    assert "link to #没有这一节 matches no heading" in text
    assert f"{unpinned} follows a branch; pin a version tag" in text


def test_check_runs_the_posts_python_blocks_like_a_reader(project):
    post = project.root / "posts/sample-post.md"
    post.write_text(
        post.read_text(encoding="utf-8").replace("print(scale(21))", "print(scael(21))")
    )
    from buildlib.checks import check_reader

    problems = check_reader(project, "posts/sample-post.md", post.read_text(encoding="utf-8"))
    assert len(problems) == 1 and "NameError" in problems[0]
    assert problems[0].startswith("posts/sample-post.md:")


def test_prose_length_counts_cjk_and_latin_words_not_code():
    text = "## §一 标题\n\n中文四字 and two words\n\n```python\nx = '很多中文字'\n```\n\n## 相关文章\n\n导航"
    assert prose_length(text) == len("一标题") + 4 + 3  # "§" counts as neither; code is left out


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
    assert res.returncode == 2 and "needs a CUDA GPU" in res.stderr
    assert "unrecognized arguments" not in res.stderr
    res = subprocess.run(
        [sys.executable, str(REPO / "build.py"), "preview", "no-such-slug"],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: ")


def test_outputs_get_the_mode_that_open_would_give(tmp_path):
    from buildlib.fsutil import commit_tree, write_atomic

    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.md", "a\n")
        commit_tree(tmp_path / "pkg", {"m.py": "x = 1\n"}, (".py",))
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
