# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/post1_qwen3_fusion_reading.pmd by `python build.py tangle`; edit the source instead.
"""The measurements behind the posts' GPU figures, installed with the package.

    python -m qwen3_fusion.results           one line per file: name, GPU, torch, date (and its caveat)
    python -m qwen3_fusion.results NAME      that file (JSON indented, text as it is)

Every file names its GPU, software versions, date and command: a JSON file in its "meta" object, a
text file in its leading "# key: value" lines. A JSON file may carry a top-level "about": a caveat
added after the run (what a field counts, which tool version made it); its figures are as measured.

Tangled from src_literate/post1_qwen3_fusion_reading.pmd (§一); every block below is marked with its chunk.
"""

__all__ = [
    "DATA",
    "main",
    "result_files",
    "result_header",
    "result_meta",
]


# %% src_literate/post1_qwen3_fusion_reading.pmd::results_cli
import json
import sys
from importlib import resources

DATA = "_results"  # the package folder that carries them (the sources' results folder)


def result_files() -> dict:
    """{name: traversable} of every results file installed with the package."""
    root = resources.files("qwen3_fusion") / DATA
    if not root.is_dir():  # e.g. a checkout made without symlinks, whose wheel carries no results
        where = f"qwen3_fusion has no {DATA}/ folder of results"
        raise FileNotFoundError(f"{where}: reinstall from a checkout made with symlinks")
    files = sorted(root.iterdir(), key=lambda p: p.name)
    skip = lambda n: n.startswith(".") or n == "README.md"  # noqa: E731 - the repository's index of the folder
    return {p.name: p for p in files if p.is_file() and not skip(p.name)}


def result_header(path) -> tuple:
    """(meta, about) of a results file, read once: the JSON "meta" object and top-level "about"
    (None when absent), or a text file's leading "# key: value" lines and None."""
    text = path.read_text(encoding="utf-8")
    if path.name.endswith(".json"):
        data = json.loads(text)
        return (data.get("meta", {}), data.get("about")) if isinstance(data, dict) else ({}, None)
    meta = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break  # the header ends at the first line that is not a comment
        key, sep, value = line.lstrip("# ").partition(": ")
        if sep:
            meta.setdefault(key.strip(), value.strip())
    return meta, None


def result_meta(path) -> dict:
    """A results file's meta: the JSON "meta" object, or a text file's leading "# key: value" lines."""
    return result_header(path)[0]


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    files = result_files()
    if not args:
        for name, path in files.items():
            m, about = result_header(path)
            gpu = m.get("gpu_name") or m.get("gpu", "-")  # the scanner's "gpu" names its cost model
            torch_version, date = m.get("torch", "-"), m.get("date", "-")
            print(f"{name:38s} {gpu:24s} torch {torch_version:14s} {date}")
            if about is not None:  # a caveat added after the run
                print(f"    about: {about}")
        return 0
    if len(args) > 1 or args[0] not in files:
        wanted = " ".join(args)
        print(f"no results file {wanted!r}; run without arguments to list them", file=sys.stderr)
        return 2
    text = files[args[0]].read_text(encoding="utf-8")
    if args[0].endswith(".json"):
        text = json.dumps(json.loads(text), indent=1, ensure_ascii=False) + "\n"
    print(text, end="")
    return 0


if __name__ == "__main__" and globals().get("__file__", "").endswith("results.py"):  # not the weave
    sys.exit(main())
