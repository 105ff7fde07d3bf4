#!/usr/bin/env bash
# Records, on the GPU machine, the fixtures that need GPU collection AND the PyTorch operator
# plugin: the forward/backward analyzer workload (advanced indexing) and its index_select twin,
# and the training loop of test/gpu with backward kernels linked to forward lines.
# From the repo root there, with build/lib and .device carried:  bash test/analyzers/record_gpu_ops.sh "$OUT"
set -uo pipefail
FINAL="${1:?}"; OUT=/tmp/gpu-ops-out; mkdir -p "$OUT"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PY=/opt/torch/.venv/bin/python3; [ -x "$PY" ] || PY=python3
TORCH=$($PY -c 'import torch, os; print(os.path.dirname(torch.__file__))')
ABI=$($PY -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
P=/tmp/strata-plugin; mkdir -p $P
g++ -std=c++17 -O2 -g -fPIC -shared -fvisibility=hidden -D_GLIBCXX_USE_CXX11_ABI=$ABI \
  -isystem "$TORCH/include" -isystem "$TORCH/include/torch/csrc/api/include" -I profiler_runtime/src \
  profiler_runtime/plugins/torch/strata_torch.cpp -L"$TORCH/lib" -ltorch_cpu -lc10 \
  -Wl,--version-script=profiler_runtime/plugins/torch/exports.map -o $P/libstrata_torch.so || exit 1
rec() {  # rec NAME SCRIPT ARGS...
  local name="$1"; shift
  timeout 180 env STRATA_OUTPUT="$OUT/$name.strata" STRATA_PERIOD_MS=5 STRATA_TORCH_PLUGIN=$P/libstrata_torch.so \
    LD_PRELOAD="$PWD/build/lib/libstrata_runtime.so" $PY "$@" > "$OUT/$name.log" 2>&1
  echo "$name: exit $? $(stat -c %s "$OUT/$name.strata" 2>/dev/null) bytes"
}
rec index_backward test/analyzers/workloads/index_backward.py 30
rec index_backward_twin test/analyzers/workloads/index_backward.py --twin 30
rec gpu_torch_train_ops test/gpu/torch_train.py 100
tar czf "$FINAL/gpu_ops.tgz" -C "$OUT" .; ls -la "$FINAL"
