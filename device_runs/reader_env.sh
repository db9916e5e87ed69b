# Sourced by the H200 calls that run the posts as a reader would (final_gpu_call*.sh, session7_blocks.sh):
# the wheels in .whl/ (liger-kernel, torchinfo) on PYTHONPATH with the tangled package, `python` and
# `qwen3-fusion-scan` on PATH as a `pip install .` would give them, the versions recorded in $OUT.
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD/generated PYTHONUNBUFFERED=1
mkdir -p /tmp/shim && printf '#!/bin/sh\nexec python3 "$@"\n' > /tmp/shim/python \
  && printf '#!/bin/sh\nexec python3 -c "import sys; from qwen3_fusion.signals import main; sys.exit(main())" "$@"\n' > /tmp/shim/qwen3-fusion-scan \
  && chmod +x /tmp/shim/* && export PATH=/tmp/shim:$PATH
python3 -c "import torch, triton, transformers; print(torch.__version__, triton.__version__, transformers.__version__, torch.cuda.get_device_name())" | tee "$OUT/versions.txt"

# run_post_blocks SECONDS: both posts' python and bash blocks in order, each post in a scratch folder
run_post_blocks() {
  local post
  for post in triton-rmsnorm-kernel qwen3-fusion-reading; do
    mkdir -p /tmp/reader_$post && (cd /tmp/reader_$post && timeout "$1" python3 "$OLDPWD/device_runs/run_post_blocks.py" "$OLDPWD/device_runs/post_blocks/$post.json") \
      > "$OUT/blocks_$post.txt" 2>&1; echo "$post rc=$?"; grep -a "^ok\|^skip\|^FAIL" "$OUT/blocks_$post.txt" | tail -40
  done
}

# step_round DIR CONFIG VARIANT ROUND: one `train_step` process into DIR/step_<config>_<variant>_r<round>.txt (the
# names steps_to_json.py reads), a line in $OUT/log.txt (t: seconds since the caller's T0), DIR re-packed into
# $OUT/results.tar so that what finished survives a timeout
step_round() {
  timeout 80 python3 -m qwen3_fusion.train_step --config "$2" --variant "$3" > "$1/step_$2_$3_r$4.txt" 2>&1
  echo "$2 $3 r$4 rc=$? $(date -u +%T) t=$((SECONDS - ${T0:-0}))" >> "$OUT/log.txt"
  tar -cf "$OUT/results.tar" -C "$1" .
}

# compiled_pair_rounds DIR: compile_causal against compile_causal_qk_rope at qwen3_0.6b_8l, three interleaved
# rounds (a fresh process each, via step_round), then DIR/qk_rope_compile_steps.json by steps_to_json.py with
# the device's own meta; the caller sets T0
compiled_pair_rounds() {
  python3 -c "import json; from qwen3_fusion import bench_common as bc; print(json.dumps({'meta': bc.environment('meta')}))" > "$1/meta.json"
  local r v
  for r in 1 2 3; do for v in compile_causal compile_causal_qk_rope; do step_round "$1" qwen3_0.6b_8l $v $r; done; done
  python3 device_runs/steps_to_json.py "$1" "$1/qk_rope_compile_steps.json" \
    "python -m qwen3_fusion.train_step --config qwen3_0.6b_8l --variant {compile_causal,compile_causal_qk_rope}, 3 interleaved rounds" "$1/meta.json" >> "$OUT/log.txt" 2>&1
  tar -cf "$OUT/results.tar" -C "$1" .
}
