#!/usr/bin/env bash
# One device call: the torch.compile'd models again with the Python shim (frames inside
# torch/nn/modules kept in Dynamo's traces), a real Kineto trace for `strata import`, and the
# many-Python-threads benchmark at the default period. Carry: .device (rt-F/libstrata_runtime.so,
# libunwind8_*.deb).
#   bash bench/session_h100_issue14.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
export STRATA_RUNTIME=.device/rt-F/libstrata_runtime.so
mkdir -p "$OUT/k"
KEEP_TORCH_TRACE=1 MODELS="compiled compiled_vit" timeout 330 bash bench/real_models/record_h100.sh "$OUT"
timeout 60 python3 bench/real_models/kineto_trace.py "$OUT/k/resnet18_train_stacks.trace.json.gz"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
timeout 150 python3 bench/python_threads.py --rounds 5 --work 6000000 --threads 32,1 \
  --runtime strata=$STRATA_RUNTIME --python /usr/bin/python3 > "$OUT/k/python_threads.md" 2> "$OUT/k/python_threads.err"
nproc > "$OUT/k/nproc.txt"
tar -C "$OUT" -czf "$OUT/extra.tar.gz" k && rm -rf "$OUT/k"
ls -l "$OUT"
