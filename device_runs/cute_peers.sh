#!/usr/bin/env bash
# Session 37, second call: reassemble nvidia-cutlass-dsl-libs-cu13 from the two carried halves (.cute/a
# came with the first call and stays on the warm machine), install the CuTe DSL wheels and Liger 0.8.5
# beside the image's torch 2.11, check that both CuTe RMSNorms import, then device_runs/cute_peers.py.
set -u
cat .cute/a/cu13.part.aa .cute/b/cu13.part.ab > /tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
echo "$(cat .cute/b/cu13.sha256)  /tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl" | sha256sum -c - || exit 2
rm -rf /tmp/site && mkdir -p /tmp/site
# unzip, not pip --target: three of these wheels share the folder nvidia_cutlass_dsl/, which pip --target
# installs only once (the later ones are skipped with a warning)
for w in .whl/*.whl .cute/b/*.whl /tmp/nvidia_cutlass_dsl_libs_cu13-*.whl; do python3 -m zipfile -e "$w" /tmp/site; done
# unzipping runs no .pth file, and nvidia_cutlass_dsl's .pth is what puts dsl_packages (cutlass) on sys.path
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PWD/generated PYTHONUNBUFFERED=1
python3 -c "import cutlass, cutlass.cute; print('cutlass', cutlass.__version__ if hasattr(cutlass, '__version__') else 'ok')" 2>&1 | tail -3
python3 -c "import quack; print('quack', quack.__version__)" 2>&1 | tail -3
python3 -c "from liger_kernel.ops.cutedsl.ops.rms_norm import LigerRMSNormFunction; print('liger cute ok')" 2>&1 | tail -3
timeout 500 python3 device_runs/cute_peers.py "$OUT/cute_peers.json" 2>&1 | tee "$OUT/cute_peers.log" | grep -v "^\[" | tail -40
