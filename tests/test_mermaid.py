"""buildlib.mermaid: palette, static lint of what mermaid lets pass silently, real render in Chromium."""

import json
import os
import re
import shutil
import subprocess
import time

import pytest

from buildlib import browser, mermaid
from buildlib.mermaid import Diagram, MermaidUnavailable, decorate, lint, load_palette, render_all

PALETTE_PATH = mermaid.ROOT / "templates" / "mermaid_palette.yaml"


def needs_browser():
    """Skip where Chromium or node_modules/mermaid is missing; on CI (which installs both), fail."""
    reason = mermaid.missing()
    if reason:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)


@pytest.fixture(scope="module")
def palette():
    return load_palette(PALETTE_PATH)


@pytest.fixture(scope="module")
def classes(palette):
    return set(palette["classes"])


GOOD_FLOWCHART = """flowchart TD
  subgraph L0 [解码层 x28]
    direction LR
    X["hidden (bf16)"] --> N1(input_layernorm):::hfYellow
    N1 -->|q, k, v| ATT{{Attention}}
    ATT -- 残差 --> ADD((+))
    node-1 --o E[(kv cache)]
  end
  A & B --> C
  class X,ATT hfBlue
  style ADD stroke-width:2px
  style L0 fill:#ffffff
  style node-1 fill:#ffffff
  A --> B; style C fill:#eeeeee
  linkStyle 0 stroke:#8A8A8A"""

GOOD_SEQUENCE = """sequenceDiagram
  participant H as Host
  participant G as GPU
  H->>G: launch _rmsnorm_fwd_kernel
  Note over H,G: 同步点
  G-->>H: done"""

GOOD_STATE = """stateDiagram-v2
  [*] --> Idle
  state "运行中" as Run
  Idle --> Run : start
  class Run hfGreen
  Run --> [*]"""

GOOD_ER = """erDiagram
  CUSTOMER ||--o{ ORDER : places
  ORDER }|..|{ LINE_ITEM : contains
  style ORDER fill:#ffffff
  class CUSTOMER hfBlue"""


# --- palette -----------------------------------------------------------------------------------


def test_palette_loads_with_fontfamily_at_top_level(palette, classes):
    assert classes == {"hfYellow", "hfBlue", "hfGreen", "hfPink", "hfPurple", "hfGray"}
    assert "-" in palette["init"]["fontFamily"]  # allowed at the top level only
    assert "fontFamily" not in palette["init"]["themeVariables"]


@pytest.mark.parametrize(
    "text, expect",
    [
        ("init:\n  themeVariables:\n    fontFamily: a-b\nclasses:\n  c: fill:#fff\n", "'-'"),
        ("init:\n  themeVariabls: {}\nclasses:\n  c: fill:#fff\n", "themeVariabls"),
        ("init:\n  theme: pastel\nclasses:\n  c: fill:#fff\n", "theme 'pastel'"),
        ("init: {}\nclasses:\n  c: fill #fff\n", "prop:value"),
        ("init: {}\nclasses:\n  c-d: fill:#fff\n", "identifier"),
        ("init: {}\n", "exactly the keys"),
        ("init: [\n", "not valid YAML"),
    ],
)
def test_palette_rejects(tmp_path, text, expect):
    path = tmp_path / "palette.yaml"
    path.write_text(text)
    with pytest.raises(ValueError) as err:
        load_palette(path)
    assert str(err.value).startswith(f"{path}: ")
    assert expect in str(err.value)


# --- decorate ----------------------------------------------------------------------------------


def test_decorate_prepends_init_and_appends_classdefs(palette, classes):
    woven = decorate(GOOD_FLOWCHART, palette)
    lines = woven.splitlines()
    assert lines[0].startswith("%%{init: ") and lines[0].endswith("}%%")
    assert json.loads(lines[0][len("%%{init: ") : -len("}%%")]) == palette["init"]
    assert lines[1 : 1 + GOOD_FLOWCHART.count("\n") + 1] == GOOD_FLOWCHART.splitlines()
    defs = {ln.split()[1]: ln.split()[2] for ln in lines if ln.startswith("classDef ")}
    assert defs == palette["classes"]


def test_decorate_adds_no_classdef_where_the_grammar_has_none(palette):
    woven = decorate(GOOD_SEQUENCE, palette)
    assert woven.startswith("%%{init: ")
    assert "classDef" not in woven


def test_decorate_keeps_front_matter_first(palette):
    woven = decorate("---\ntitle: 图\n---\nflowchart LR\n  A --> B", palette)
    assert woven.startswith("---\ntitle: 图\n---\n%%{init: ")


@pytest.mark.parametrize("body", [GOOD_FLOWCHART, GOOD_SEQUENCE, GOOD_STATE, GOOD_ER])
def test_good_diagrams_pass_lint_bare_and_decorated(palette, classes, body):
    assert lint(body, classes) == []
    assert lint(decorate(body, palette), classes) == []


# --- lint: each silent case, alone -----------------------------------------------------------

SILENT = {
    "unknown class": (
        "flowchart LR\n  A --> B\n  class A hfblue",
        3,
        "class 'hfblue', not a palette class",
    ),
    "unknown ::: class": ("flowchart LR\n  A:::nope --> B", 2, "class 'nope'"),
    "style on undefined node": (
        "flowchart LR\n  A[Z] --> B\n  style Z fill:#ff0000",
        3,
        "style names node 'Z'",
    ),
    "class on undefined node": (
        "flowchart LR\n  A --> B\n  class Q hfBlue",
        3,
        "class names node 'Q'",
    ),
    "malformed init": (
        "%%{init: {theme: 'base'}}%%\nflowchart LR\n  A --> B",
        1,
        "malformed %%{init}%% directive",
    ),
    # (mermaid does report this one, as "No diagram type detected", which names no line)
    "unclosed directive": (
        '%%{init: {"theme": "base"}\nflowchart LR\n  A --> B',
        1,
        "without a closing",
    ),
    "dash in themeVariables": (
        "%%{init: {'themeVariables': {'fontFamily': 'Noto Sans, sans-serif'}}}%%\n"
        "flowchart LR\n  A --> B",
        1,
        "themeVariables.fontFamily",
    ),
    "author init": ('%%{init: {"theme": "dark"}}%%\nflowchart LR\n  A --> B', 1, "author-written"),
    "author classDef": (
        "flowchart LR\n  A --> B\n  classDef mine fill:#ff0000",
        3,
        "author-written classDef",
    ),
    "class in a mindmap": ("mindmap\n  root((融合))\n    A:::hfBlue", 3, "has no classDef"),
    "front matter config": (
        "---\nconfig:\n  theme: dark\n---\nflowchart LR\n  A --> B",
        1,
        "front matter 'config:'",
    ),
}


@pytest.mark.parametrize("case", sorted(SILENT))
def test_lint_catches(palette, classes, case):
    body, line, expect = SILENT[case]
    found = lint(body, classes)
    assert any(p.startswith(f"line {line} of the diagram: ") and expect in p for p in found), found
    # decorated, the same problem is one line further down (below the palette's init line), except
    # in front matter, which stays first
    line += 0 if body.startswith("---") else 1
    found = lint(decorate(body, palette), classes)
    assert any(p.startswith(f"line {line} of the diagram: ") and expect in p for p in found)
    assert all(p.startswith("line ") for p in found)


def test_lint_reports_only_the_problem(classes):
    assert lint("flowchart LR\n  A --> B\n  style Z fill:#ff0000", classes) == [
        "line 3 of the diagram: style names node 'Z', which the diagram never defines"
    ]


def test_lint_class_diagram_statements(classes):
    body = 'classDiagram\n  class Animal\n  Animal <|-- Duck\n  cssClass "Animal,Cat" hfPink'
    assert lint(body, classes) == [
        "line 4 of the diagram: cssClass names node 'Cat', which the diagram never defines"
    ]


def test_mermaid_line_numbers_map_to_the_woven_diagram(palette):
    woven = decorate("flowchart LR\n  %% a comment\n  A --> B\n  B -->", palette)
    # mermaid drops the init line and the comment line: its line 3 is woven line 5
    assert mermaid._mermaid_lines(woven)[:3] == [2, 4, 5]


# --- availability --------------------------------------------------------------------------------


def test_unavailable_names_the_install_step(monkeypatch, tmp_path):
    monkeypatch.setattr(mermaid, "MERMAID_JS", tmp_path / "mermaid.min.js")
    with pytest.raises(MermaidUnavailable, match="npm ci"):
        render_all([Diagram("posts/a.md", 1, "flowchart LR\n  A --> B")])
    monkeypatch.undo()
    monkeypatch.delenv("CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MermaidUnavailable, match="apt-get install -y chromium fonts-noto-cjk"):
        mermaid.find_chromium()
    assert "\n" not in mermaid.CHROMIUM_HINT and "\n" not in mermaid.NPM_HINT


def test_no_diagrams_needs_no_browser(monkeypatch, tmp_path):
    monkeypatch.setattr(mermaid, "MERMAID_JS", tmp_path / "mermaid.min.js")
    assert render_all([]) == []


def test_package_lock_pins_mermaid():
    lock = json.loads((mermaid.ROOT / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/mermaid"]["version"] == "11.17.2"


def test_config_keys_match_installed_mermaid():
    needs_browser()
    d_ts = (mermaid.MERMAID_JS.parent / "config.type.d.ts").read_text()
    start = d_ts.index("export interface MermaidConfig {")
    body = d_ts[start : d_ts.index("\n}", start)]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    keys = set(re.findall(r"^ {4}([A-Za-z]\w*)\??:", body, flags=re.M))
    assert keys == mermaid.CONFIG_KEYS


def test_cjk_font_installed():
    needs_browser()
    if not shutil.which("fc-match"):
        pytest.fail("fc-match missing: apt-get install -y fontconfig fonts-noto-cjk")
    family = subprocess.run(
        ["fc-match", "-f", "%{family}", "Noto Sans CJK SC"], capture_output=True, text=True
    ).stdout
    assert "Noto Sans CJK SC" in family, "Chinese renders as boxes: apt-get install fonts-noto-cjk"


# --- render in Chromium --------------------------------------------------------------------------


def test_render_reports_exactly_the_bad_diagram(palette):
    needs_browser()
    good = decorate(GOOD_FLOWCHART, palette)
    bad = decorate("flowchart LR\n  A --> B\n  B -->> C[", palette)
    diagrams = [
        Diagram("posts/a.md", 12, good),
        Diagram("posts/b.md", 7, bad),
        Diagram("posts/b.md", 30, decorate(GOOD_SEQUENCE, palette)),
        Diagram("posts/b.md", 40, decorate(GOOD_STATE, palette)),
        Diagram("posts/b.md", 50, decorate(GOOD_ER, palette)),
    ]
    problems = render_all(diagrams)
    assert len(problems) == 1, problems
    first, *shown = problems[0].splitlines()
    assert first.startswith("posts/b.md:7: Parse error on line 3: [line 4 of the diagram below]")
    assert "4 |   B -->> C[" in [ln.strip() for ln in shown]


def test_render_passes_what_only_lint_catches(palette):
    """mermaid itself renders these without an error: that is why lint exists."""
    needs_browser()
    silent = [body for case, (body, _, _) in SILENT.items() if case != "unclosed directive"]
    diagrams = [Diagram("posts/a.md", i, decorate(b, palette)) for i, b in enumerate(silent)]
    assert render_all(diagrams) == []


def test_a_page_script_is_stopped_at_the_deadline():
    needs_browser()
    with mermaid.open_page(30) as page:
        t0 = time.monotonic()
        with pytest.raises(browser.BrowserTimeout):
            browser.evaluate(page, "() => new Promise(() => {})", None, 1.0)
        assert time.monotonic() - t0 < 3
        assert browser.evaluate(page, "(x) => x + 1", 1) == 2  # the page still answers


def test_a_browser_that_never_answers_is_killed(monkeypatch, tmp_path):
    if browser.missing() == browser.PLAYWRIGHT_HINT:
        pytest.skip(browser.PLAYWRIGHT_HINT)
    fake = tmp_path / "chromium"
    fake.write_text('#!/bin/sh\necho $$ > "$0.pid"\nexec sleep 60\n')
    fake.chmod(0o755)
    (tmp_path / "mermaid.min.js").write_text("")
    monkeypatch.setenv("CHROMIUM", str(fake))
    monkeypatch.setattr(mermaid, "MERMAID_JS", tmp_path / "mermaid.min.js")
    t0 = time.monotonic()
    with pytest.raises(MermaidUnavailable, match=r"\(timed out\)"):
        render_all([Diagram("posts/a.md", 1, "flowchart LR\n  A --> B")], timeout_s=1)
    assert time.monotonic() - t0 < 6
    pid = int((tmp_path / "chromium.pid").read_text())
    time.sleep(0.2)
    assert not os.path.exists(f"/proc/{pid}") or "Z" in open(f"/proc/{pid}/stat").read().split()[2]


def test_render_timeout_reports_instead_of_hanging(palette):
    needs_browser()
    diagrams = [Diagram("posts/a.md", 1, decorate(GOOD_SEQUENCE, palette))]
    t0 = time.monotonic()
    with pytest.raises(MermaidUnavailable, match="timed out"):
        render_all(diagrams, timeout_s=0.05)
    assert time.monotonic() - t0 < 5
