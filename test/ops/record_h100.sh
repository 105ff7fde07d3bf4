#!/usr/bin/env bash
# Records the operator fixtures on the GPU machine (H100, CUDA 13, PyTorch 2.11, Python 3.12):
# builds libstrata_torch.so there against the installed torch (its headers ship in the wheel),
# then runs test/ops/torch_model.py on the CPU and on CUDA with the runtime preloaded, a plugin
# built for another torch (must be refused, program unharmed), and the loop's speed without the
# runtime / runtime without the plugin / with it. From the repo root on the device, with
# build-ops/lib (the runtime, built on the dev machine) and .device (libunwind's .deb) carried:
#   bash test/ops/record_h100.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
ROOT="$PWD"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
PY=/opt/torch/.venv/bin/python3
[ -x "$PY" ] || PY=python3
RT="$ROOT/build-ops/lib/libstrata_runtime.so"
DUMP="$ROOT/.device/gpu/bin/strata_rt_dump_profile"
TORCH=$($PY -c 'import torch, os; print(os.path.dirname(torch.__file__))')
ABI=$($PY -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "date: $(date -u +%FT%TZ); $($PY -V); torch $($PY -c 'import torch; print(torch.__version__, torch.version.cuda)') abi $ABI; $(g++ --version | head -1)"
P=/tmp/strata-plugin; mkdir -p $P
build() {  # build OUTPUT [extra flags]
  local o="$1"; shift
  g++ -std=c++17 -O2 -g -fPIC -shared -fvisibility=hidden -D_GLIBCXX_USE_CXX11_ABI=$ABI "$@" \
    -isystem "$TORCH/include" -isystem "$TORCH/include/torch/csrc/api/include" -I profiler_runtime/src \
    profiler_runtime/plugins/torch/strata_torch.cpp -L"$TORCH/lib" -ltorch_cpu -lc10 \
    -Wl,--version-script=profiler_runtime/plugins/torch/exports.map -o "$o"
}
t0=$(date +%s); build $P/libstrata_torch.so || exit 1
build $P/libstrata_torch_other.so '-DSTRATA_TORCH_BUILT_VERSION="2.10.0"' || exit 1
echo "plugins built in $(( $(date +%s) - t0 )) s"; cp $P/libstrata_torch.so "$OUT/libstrata_torch_2.11.so"
meta() { "$DUMP" "$1" 0 | grep -E "^(operators|gpu|samples|python|unwind)"; }
rec() {  # rec NAME PLUGIN -- ARGS
  local name="$1" plugin="$2"; shift 3
  timeout 120 env STRATA_OUTPUT="$OUT/$name.strata" STRATA_PERIOD_MS=1 STRATA_TORCH_PLUGIN="$plugin" LD_PRELOAD="$RT" \
    $PY test/ops/torch_model.py "$@"
  echo "$name: exit $?"; meta "$OUT/$name.strata"
}
rec ops_cpu $P/libstrata_torch.so -- 4
rec ops_cuda $P/libstrata_torch.so -- 4 --device cuda
rec ops_refused $P/libstrata_torch_other.so -- 1; rm -f "$OUT/ops_refused.strata"
rec ops_debian_plugin "$ROOT/build-ops/lib/libstrata_torch.so" -- 1; rm -f "$OUT/ops_debian_plugin.strata"
for dev in cpu cuda; do  # steps in 3 s: no runtime / runtime without plugin / with plugin
  echo "speed $dev: none $($PY test/ops/torch_model.py 3 --device $dev)"
  echo "speed $dev: runtime $(STRATA_OUTPUT=/tmp/a.strata STRATA_TORCH_PLUGIN=/nonexistent LD_PRELOAD="$RT" $PY test/ops/torch_model.py 3 --device $dev)"
  echo "speed $dev: runtime+ops $(STRATA_OUTPUT=/tmp/b.strata STRATA_TORCH_PLUGIN=$P/libstrata_torch.so LD_PRELOAD="$RT" $PY test/ops/torch_model.py 3 --device $dev)"
done
ls -l "$OUT"
