# GENERATED FILE - DO NOT EDIT.
# Tangled from src_literate/*.pmd by `python build.py tangle`; edit the source instead.
"""Code of the 训推加速 posts on Qwen3 fusion and Triton kernels.

Modules (import the one you need; importing the package loads nothing):

    qwen3_fusion.bench                <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.bench_artifacts      <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.bench_atomic         <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.bench_common         <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.bench_norms          <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.bench_probes         <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.bench_qk_rope        <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.bench_split          <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.bench_steps          <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.bench_sweep          <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.candidates           <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.configs              <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.fusion_groups        <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.inductor_check       <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.launcher             <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.ncu_target           <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.patching             <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.patterns             <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.qk_norm_rope         <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.reading              <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.results              <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.rmsnorm              <- src_literate/post2_triton_rmsnorm.pmd
    qwen3_fusion.scan_cli             <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.signals              <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.trace_capture        <- src_literate/post1_qwen3_fusion_reading.pmd
    qwen3_fusion.train_step           <- src_literate/post2_triton_rmsnorm.pmd
"""

__version__ = "0.2.0"  # [project] version of pyproject.toml

__all__ = [
    "bench",
    "bench_artifacts",
    "bench_atomic",
    "bench_common",
    "bench_norms",
    "bench_probes",
    "bench_qk_rope",
    "bench_split",
    "bench_steps",
    "bench_sweep",
    "candidates",
    "configs",
    "fusion_groups",
    "inductor_check",
    "launcher",
    "ncu_target",
    "patching",
    "patterns",
    "qk_norm_rope",
    "reading",
    "results",
    "rmsnorm",
    "scan_cli",
    "signals",
    "trace_capture",
    "train_step",
]
