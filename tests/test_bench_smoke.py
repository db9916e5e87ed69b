"""The benchmark's CPU smoke run: every section runs at tiny sizes and writes a results file that
passes the schema check (the numbers mean nothing; the posts read the GPU run's file)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO / "generated"))
    run = subprocess.run([sys.executable, "-m", "qwen3_fusion.bench", "--smoke", "--out", str(out)],
                         cwd=out, env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return out, json.loads((out / "smoke.json").read_text(encoding="utf-8"))


def test_every_section_is_written_with_its_meta(smoke):
    from qwen3_fusion.bench import SECTIONS, validate

    out, res = smoke
    assert set(res["sections"]) == set(SECTIONS)
    validate(res)  # raises on a missing key or a non-finite number
    assert (out / res["inductor"]["file"]).read_text(encoding="utf-8").startswith("# inductor rmsnorm")
    assert {r["impl"] for r in res["rmsnorm"]} >= {"ours", "hf_eager"}
    assert {r["variant"] for r in res["train_steps"]["smoke"]} >= {"hf", "ours_fwd_bwd"}
    # every implementation computes the same function: errors against float64 stay small
    assert max(r["rel_err"] for r in res["rmsnorm"]) < 1e-2


def test_validate_refuses_a_non_finite_number_and_a_missing_meta(smoke):
    from qwen3_fusion.bench import validate

    _, res = smoke
    bad = json.loads(json.dumps(res))
    bad["rmsnorm"][0]["gbps"] = float("nan")
    del bad["sections"]["host"]["date"]
    with pytest.raises(ValueError, match="gbps is nan.*|meta lacks date"):
        validate(bad)


def test_only_merges_one_section_into_the_file(smoke, tmp_path):
    out, res = smoke
    (tmp_path / "smoke.json").write_text(json.dumps(res), encoding="utf-8")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO / "generated"))
    cmd = [sys.executable, "-m", "qwen3_fusion.bench", "--smoke", "--only", "host", "--out", str(tmp_path)]
    run = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    merged = json.loads((tmp_path / "smoke.json").read_text(encoding="utf-8"))
    assert merged["sections"]["host"]["command"].endswith("--only host")
    assert merged["sections"]["train"] == res["sections"]["train"]
    assert merged["train_steps"] == res["train_steps"]


def test_unknown_section_is_a_usage_error(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "generated"))
    cmd = [sys.executable, "-m", "qwen3_fusion.bench", "--smoke", "--only", "hots", "--out", str(tmp_path)]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "unknown section(s) hots" in run.stderr


def test_host_issue_is_the_median_of_its_samples(smoke):
    from qwen3_fusion.train_step import HOST_SAMPLES

    _, res = smoke
    for r in res["train_steps"]["smoke"]:
        samples = r["host_issue_ms_samples"]
        assert len(samples) == HOST_SAMPLES and r["host_issue_ms"] == sorted(samples)[len(samples) // 2]


def test_liger_patch_of_qwen3_globals_is_undone():
    """Liger's apply_liger_kernel_to_qwen3 rebinds modeling_qwen3's globals (RoPE, norm and MLP
    classes); the training bench must put them back, or later variants run Liger's kernels."""
    from transformers.models.qwen3 import modeling_qwen3

    from qwen3_fusion.train_step import qwen3_globals_kept

    before = dict(vars(modeling_qwen3))
    with pytest.raises(RuntimeError, match="variant failed"):
        with qwen3_globals_kept():
            modeling_qwen3.apply_rotary_pos_emb = lambda *a: a
            modeling_qwen3.Qwen3RMSNorm = object
            modeling_qwen3.added_by_a_patch = 1
            raise RuntimeError("variant failed")
    after = dict(vars(modeling_qwen3))
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)


def test_kernel_class_puts_every_attention_kernel_in_attention():
    """Memory-efficient sdpa kernels (fmha_cutlass*) and cuDNN's backward helpers are attention, not
    GEMM or elementwise; GEMMs stay GEMMs."""
    from qwen3_fusion.bench_artifacts import kernel_class

    attention = ["fmha_cutlassF_bf16_aligned_64x64_rf_sm80", "void cudnn::fusion::convert_dq_to_16bits<true>(void const*)",
                 "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x"]  # fmt: skip
    assert [kernel_class(n) for n in attention] == ["attention"] * 3
    assert kernel_class("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT") == "gemm"
    assert kernel_class("cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64") == "gemm"


def test_kernel_class_counts_inductor_fusions_as_elementwise():
    """An Inductor kernel that fused a cast keeps "_to_copy" in its name: it is a fused elementwise or
    reduction kernel, not a copy; ATen's own copy kernels stay copies."""
    from qwen3_fusion.bench_artifacts import kernel_class

    fused = ["triton_red_fused__log_softmax__to_copy__unsafe_view_prepare_softmax_online_view_14",
             "triton_poi_fused__to_copy_add_bmm_cat_cos_mul_neg_sin_slice_slice_backward_transpose_unsqueeze_4",
             "triton_per_fused__to_copy__unsafe_view_add_mean_mul_pow_rsqrt_12"]  # fmt: skip
    assert [kernel_class(n) for n in fused] == ["elementwise_reduction"] * 3
    aten_copy = "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
    assert kernel_class(aten_copy) == "copy"
