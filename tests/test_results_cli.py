"""The results files installed with the package: listed, each with its meta, and one bad name refused."""

import json
from pathlib import Path

from qwen3_fusion import results

SOURCE = Path(__file__).resolve().parent.parent / "src_literate" / "results"


def test_lists_every_results_file(capsys):
    assert results.main([]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == sorted(p.name for p in SOURCE.iterdir() if p.is_file() and not p.name.startswith(".") and p.name != "README.md")


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
