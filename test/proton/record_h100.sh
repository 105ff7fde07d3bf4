#!/usr/bin/env bash
# Records the Proton fixtures and the side-by-side numbers on the GPU machine (H100, Triton 3.6,
# issue 7 parts 4 and 6). Built on the dev machine and carried (carry: .device/proton):
#   cmake --build build-proton -j2 --target strata_runtime strata_rt_dump_profile
#   mkdir -p .device/proton && cp build-proton/lib/libstrata_runtime.so build-proton/bin/strata_rt_dump_profile \
#     .device/libunwind8_*.deb .device/proton/
#   bash test/proton/record_h100.sh "$OUT"
# Per kernel, each in its own process and Triton cache (so instrumented and plain binaries never
# mix): plain time per launch, the same with Proton instrumentation on, one launch's Proton trace
# and hatchet, and the kernel under Strata's runtime (CUPTI kernel time, then PC sampling).
set -uo pipefail
OUT="${1:?output folder}"
ROOT=$(pwd)
PY=/opt/torch/.venv/bin/python3
[ -x "$PY" ] || PY=python3
B=$ROOT/.device/proton
W=/tmp/proton_rec; rm -rf "$W"; mkdir -p "$W"
export PYTHONUNBUFFERED=1 PROTON_BENCH_DIR="$W"
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "date: $(date -u +%FT%TZ)"
"$PY" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.version.cuda)"
late() { [ $(( $(date +%s) - T0 )) -gt "${1:-${LATE:-330}}" ]; }
# run TAG CACHE ARGS...: one example process, its output, exit status and wall time.
run() {
  local tag=$1 cache=$2; shift 2
  if late; then echo "== $tag: skipped (time)"; return 1; fi
  local s=$(date +%s%N)
  (cd "$ROOT/test/proton" && TRITON_CACHE_DIR=/tmp/tc_$cache timeout "${TIMEOUT:-100}" "$PY" "$@") > "$W/$tag.log" 2>&1
  local rc=$?
  echo "== $tag (exit $rc, $(( ($(date +%s%N) - s) / 1000000 )) ms): $*"
  grep -v "^\s*$" "$W/$tag.log" | grep -vi "warn" | tail -6
  return $rc
}
# In order of need, so that a short lease still brings back the first cases.
case_runs() {  # TAG SCRIPT ARGS... ; SKIP_HATCHET=1 to leave out the hatchet
  local tag=$1; shift
  run "$tag.plain" "$tag.plain" "$@" --bench plain || return 1
  run "$tag.proton" "$tag.proton" "$@" --bench proton
  run "$tag.trace" "$tag.proton" "$@" --proton "$W/$tag"
  [ -n "${SKIP_HATCHET:-}" ] || run "$tag.hatchet" "$tag.proton" "$@" --proton "$W/$tag" --hatchet
}
strata_run() {  # OUT_TAG SCRIPT ARGS...: the example under Strata's runtime (STRATA_PC=continuous: PC sampling)
  [ -f "$B/libstrata_runtime.so" ] || return 1
  late "${LATE:-400}" && return 1
  mkdir -p /tmp/strata-unwind && dpkg -x "$B"/libunwind8_*.deb /tmp/strata-unwind
  local tag=$1 s=$(date +%s%N) extra=(); shift
  [ -n "${STRATA_PC:-}" ] && extra=(STRATA_PC_SAMPLING=$STRATA_PC)
  # timeout first, env after: the runtime must be preloaded into python, not into timeout.
  (cd test/proton && TRITON_CACHE_DIR=/tmp/tc_$tag timeout 120 env \
    LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    STRATA_OUTPUT="$W/strata_$tag.strata" "${extra[@]}" LD_PRELOAD="$B/libstrata_runtime.so" "$PY" "$@") > "$W/strata_$tag.log" 2>&1
  echo "== strata $tag (exit $?, $(( ($(date +%s%N) - s) / 1000000 )) ms): $*"; grep -E "BENCH|error" "$W/strata_$tag.log"
  LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu" "$B/strata_rt_dump_profile" "$W/strata_$tag.strata" 40 2>&1 |
    grep -E "^(gpu|pc_sampling|mode|python)|kernel|attn|matmul" | head -24
}
PARTS="${PARTS:-1 2}"  # 1: Proton cases and overhead; 2: Strata's runtime on the same kernels; 3: larger Proton buffer; 4: Triton's own WS; 5: the Gluon WS kernel alone (Proton and Strata)
on() { [[ " $PARTS " == *" $1 "* ]]; }
if on 1; then
  case_runs matmul_pipelined matmul_pipelined.py
  SKIP_HATCHET=1 case_runs attention attention_ws.py
  # Triton's own warp specialization (attention_ws.py --ws) compiles but never finishes on the
  # H100 (2026-11-23): PARTS=4 tries it again, with a short timeout. The hand-written Gluon
  # partitions are the warp-specialized case.
  case_runs attention_ws_gluon attention_ws_gluon.py
  run matmul_outer.proton matmul_outer matmul_pipelined.py --no-loop-scopes --bench proton
fi
if on 3; then  # Proton's default buffer keeps 128 of the matmul's 132 records per warp: 4x
  run matmul_buf.trace matmul_buf matmul_pipelined.py --buffer-size 32768 --proton "$W/matmul_pipelined_buf"
  run matmul_buf.proton matmul_buf matmul_pipelined.py --buffer-size 32768 --bench proton
fi
if on 4; then
  TIMEOUT=30 run attention_ws.plain attention_ws_tl attention_ws.py --ws --bench plain
fi
if on 5; then
  case_runs attention_ws_gluon attention_ws_gluon.py
  strata_run attn_ws_gluon attention_ws_gluon.py --bench plain
  strata_run attn_ws_gluon_proton attention_ws_gluon.py --bench proton
fi
if on 2; then
  strata_run mm_plain matmul_pipelined.py --bench plain
  strata_run mm_proton matmul_pipelined.py --bench proton
  strata_run mm_outer matmul_pipelined.py --no-loop-scopes --bench proton
  strata_run attn_plain attention_ws.py --bench plain
  strata_run attn_proton attention_ws.py --bench proton
  strata_run attn_ws_gluon attention_ws_gluon.py --bench plain
  STRATA_PC=continuous strata_run mm_pcs matmul_pipelined.py --bench plain
fi
ls -la "$W"
echo "elapsed: $(( $(date +%s) - T0 )) s"
# Big .strata files stay behind (PyTorch's cubins); the traces are small.
find "$W" -name "*.strata" -size +12M -delete
tar -C "$W" -czf "$OUT/proton_h100.tar.gz" . && ls -la "$OUT"
