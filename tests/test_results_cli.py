"""The results files installed with the package: listed, each with its meta, and one bad name refused."""

import json
from pathlib import Path

from qwen3_fusion import results

SOURCE = Path(__file__).resolve().parent.parent / "src_literate" / "results"


def test_lists_every_results_file(capsys):
    assert results.main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    listed = [line.split()[0] for line in lines if not line.startswith(" ")]
    assert listed == sorted(p.name for p in SOURCE.iterdir() if p.is_file() and not p.name.startswith(".") and p.name != "README.md")
    # a file's caveat ("about") is printed, indented, on the line after it, and only for files that have one
    with_about = [lines[k - 1].split()[0] for k, line in enumerate(lines) if line.startswith("    about: ")]
    expected = [p.name for p in sorted(SOURCE.glob("*.json")) if "about" in json.loads(p.read_text(encoding="utf-8"))]
    assert with_about == expected and "h200_scan_inductor_cuda_joint.json" in with_about


def test_every_measurement_names_gpu_torch_and_date():
    for name, path in results.result_files().items():
        meta = results.result_meta(path)
        gpu = meta.get("gpu_name") or meta.get("gpu", "")  # a scan's "gpu" is its cost model
        assert gpu.startswith("NVIDIA "), name
        assert meta.get("torch") and meta.get("date", "").startswith("2026-"), name


def test_prints_one_file_and_refuses_an_unknown_name(capsys):
    assert results.main(["h200.json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown == json.loads((SOURCE / "h200.json").read_text(encoding="utf-8"))
    assert results.main(["no-such-file.json"]) == 2
    assert "no-such-file.json" in capsys.readouterr().err
