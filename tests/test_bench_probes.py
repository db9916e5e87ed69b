"""The side measurements (`python -m qwen3_fusion.bench --probe ...`) on the CPU at tiny sizes: each
writes its own file with the run's meta, and the properties the posts read from the GPU run hold
where the CPU can show them (Inductor's rounding with and without emulate_precision_casts)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO / "generated"))


@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    out = tmp_path_factory.mktemp("probes")
    cmd = [sys.executable, "-m", "qwen3_fusion.bench", "--smoke", "--out", str(out),
           "--probe", "multistage,unseen,casts,in_flight,by_class,sdpa_mask,liger_groups,step_host,triton_op,bwd_split,qk_rope,atomic_dw"]  # fmt: skip
    run = subprocess.run(cmd, cwd=out, env=ENV, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    from qwen3_fusion.bench_probes import PROBE_FILES

    return {
        p: json.loads((out / f"smoke_{f}.json").read_text(encoding="utf-8"))
        for p, f in PROBE_FILES.items()
    }


def test_each_probe_file_names_its_command_and_stack(probes):
    for name, res in probes.items():
        meta = res["meta"]
        assert meta["command"] == f"python -m qwen3_fusion.bench --probe {name} --smoke"
        assert {"gpu", "date", "torch", "triton", "transformers"} <= set(meta)


def test_bwd_split_profiles_each_impl_at_each_bf16_shape(probes):
    res = probes["bwd_split"]
    assert res["calls"] >= 10
    rows = res["rows"]
    assert {(r["rows"], r["n"], r["impl"]) for r in rows} == {
        (64, 128, "ours"),
        (64, 128, "torch_compile"),
    }
    for r in rows:  # on the CPU no CUDA kernel is recorded: the split is empty, the total its sum
        assert r["dtype"] == "bfloat16" and r["total_us"] == sum(r["us_per_call"].values())


def test_qk_rope_times_three_implementations_and_compares_the_fused_output(probes):
    rows = probes["qk_rope"]["rows"]
    assert {(r["impl"], r["pass"]) for r in rows} == {
        (i, p) for i in ("hf_eager", "torch_compile", "fused") for p in ("fwd", "bwd")
    }
    assert all(r["ms"] > 0 for r in rows)
    (cmp,) = [r for r in rows if "bitwise_equal_hf" in r]
    assert (
        cmp["impl"] == "fused" and cmp["bitwise_equal_hf"] > 0.5
    )  # fp32 on the CPU: equal up to summation order


def test_emulate_precision_casts_makes_compile_match_hf_bitwise(probes):
    rows = probes["casts"]["rows"]
    assert {(r["emulate_precision_casts"], r["round"]) for r in rows} == {
        (e, k) for e in (False, True) for k in (0, 1)
    }
    for r in rows:
        if r["emulate_precision_casts"]:
            assert r["bitwise_equal_hf"] == 1.0, r
        else:  # Inductor skips HF's bf16 rounding of x * rstd: about a quarter of outputs differ
            assert 0.6 < r["bitwise_equal_hf"] < 0.9, r


def test_multistage_times_both_settings_and_ours_at_every_shape(probes):
    rows = probes["multistage"]["rows"]
    for shape in {(r["rows"], r["n"], r["dtype"]) for r in rows}:
        here = {
            (r["impl"], r["multi_stages"], r["pass"])
            for r in rows
            if (r["rows"], r["n"], r["dtype"]) == shape
        }
        assert here == {(i, m, p) for i, m in (("ours", None), ("torch_compile", False), ("torch_compile", True))
                        for p in ("fwd", "bwd")}  # fmt: skip
    assert max(r["rel_err"] for r in rows) < 1e-2


def test_unseen_widths_are_outside_the_tile_sweep(probes):
    from qwen3_fusion.bench_probes import UNSEEN_WIDTHS
    from qwen3_fusion.bench_sweep import SWEEP_SHAPES

    assert not set(UNSEEN_WIDTHS) & {n for _, n, _ in SWEEP_SHAPES}
    res = probes["unseen"]
    assert {r["round"] for r in res["emulate_n128"]} == {0} and len(res["emulate_n128"]) == 2
    assert (
        len(res["copy_by_shape"])
        == len(res["copy_by_shape_bwd"])
        == len({r["n"] for r in res["rows"]})
    )


def test_in_flight_covers_every_knob_and_every_gradient(probes):
    res = probes["in_flight"]
    labels = {r["label"] for r in res["backward_in_flight"]}
    assert {
        "ours, tile table",
        "Liger's shape: 1 program/SM, 1 row, 1 stage",
        "4 rows, 1 stage",
    } <= labels
    grads = res["gradients"]
    by_variant = {
        v: {r["param"] for r in grads if r["variant"] == v} for v in ("hf", "ours_fwd_bwd")
    }
    assert by_variant["hf"] == by_variant["ours_fwd_bwd"] and any(
        "norm" in p for p in by_variant["hf"]
    )
    # bf16 against fp32: every gradient close, none exact (a gradient never computed would be 1.0 or 0.0)
    assert all(0 < r["rel_err"] < 0.1 for r in grads), max(grads, key=lambda r: r["rel_err"])


def test_unknown_probe_is_a_usage_error(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "qwen3_fusion.bench",
        "--smoke",
        "--probe",
        "cast",
        "--out",
        str(tmp_path),
    ]
    run = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "unknown probe(s) cast" in run.stderr
    assert not list(tmp_path.iterdir())


def test_by_class_profiles_every_variant(probes):
    rows = probes["by_class"]["rows"]
    assert [r["variant"] for r in rows] == ["hf", "compile", "compile_causal"]
    assert all(abs(sum(r["by_class_ms"].values()) - r["kernel_ms"]) < 1e-6 for r in rows)


def test_sdpa_mask_times_both_forms_of_the_same_attention(probes):
    rows = probes["sdpa_mask"]["rows"]
    assert [r["form"] for r in rows] == ["mask", "is_causal", "all_true", "full"]
    assert all(r["fwd_bwd_ms"] > 0 for r in rows)
    # the materialized causal mask and is_causal compute the same attention; so do the two controls
    assert all(r["max_abs_diff_vs_mask"] < 1e-2 for r in rows)


def test_inductor_flags_are_restored_when_a_probe_fails():
    from torch._inductor import config

    from qwen3_fusion.bench_probes import FLAG, _emulate_casts, _multi_stages

    before = (getattr(config.triton, FLAG), config.emulate_precision_casts)
    with pytest.raises(RuntimeError, match="boom"):
        with _multi_stages(not before[0]), _emulate_casts(not before[1]):
            assert (getattr(config.triton, FLAG), config.emulate_precision_casts) == (
                not before[0],
                not before[1],
            )
            raise RuntimeError("boom")
    assert (getattr(config.triton, FLAG), config.emulate_precision_casts) == before


def test_step_probes_time_every_row_and_keep_the_triton_op_pair_exact(probes):
    (hf,) = probes["liger_groups"]["configs"]["smoke"]  # Liger's groups need a GPU: HF's row only
    assert hf["group"] == "hf" and hf["chunk_mem_const"] is None and hf["step_ms"] > 0
    assert {"kernels", "busy_ms", "attention_ms"} <= set(hf)  # HF's row is one of the profiled ones
    rows = probes["step_host"]["rows"]
    assert [(r["variant"], r["shape"]) for r in rows] == [
        ("hf", "2x16"),
        ("hf", "1x8"),
        ("compile", "1x8"),
        ("compile_ro", "1x8"),
    ]
    assert all(r["step_ms"] > 0 and len(r["host_issue_ms_samples"]) == 5 for r in rows)
    top = probes["triton_op"]
    assert top["triton_op_bitwise_equal_package"] is True
    assert [r["variant"] for r in top["rows"]] == ["compile", "compile_ours"]
    # the same seeded weights and tokens: both compiled models start from the same loss
    assert abs(top["rows"][0]["losses_first3"][0] - top["rows"][1]["losses_first3"][0]) < 1e-2


def test_atomic_dw_matches_two_stage_dx_and_dw_to_rounding(probes):
    (row,) = probes["atomic_dw"]["rows"]
    assert (row["rows"], row["n"], row["runs"]) == (64, 128, 20)
    assert row["dx_equal"]  # only the dW step differs between the two kernels
    assert row["two_stage_distinct_dw"] == 1  # the fixed-order sum repeats bit for bit
    # bf16 dW: another fp32 summation order moves an element by a bf16 rounding step or two at most
    assert row["dw_max_rel_diff"] < 2**-6
    assert row["two_stage_us"] > 0 and row["atomic_us"] > 0
