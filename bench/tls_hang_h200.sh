#!/usr/bin/env bash
# One device call: does the sampler's handler deadlock a thread interrupted inside malloc after
# modules with TLS were loaded? Two runtimes side by side (OLD: before the handler checked the
# thread's TLS generation; NEW: after), each run in turn:
#   - the stress target (tls_dlopen: 300 TLS modules loaded while three threads allocate), 1 ms;
#   - a real import: transformers' GPT-2 model classes and scikit-learn, sampled at 1 ms
#     (where GPT-2 benchmark processes had hung for minutes inside `import transformers`).
# A run past its limit counts as hung. Carry .device (rt-old, rt-fix, stress/, libunwind .deb).
#   RUNS=6 bash bench/tls_hang_h200.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
OLD="${OLD:-.device/rt-old}"; NEW="${NEW:-.device/rt-fix}"; RUNS="${RUNS:-6}"
source bench/device_env.sh
mkdir -p "$OUT/tls"
ldd --version | head -1
run() {  # runtime label limit command...
  local rt=$1 label=$2 limit=$3; shift 3
  local t0=$(date +%s%N)
  STRATA_PERIOD_MS=1 STRATA_OUTPUT="$OUT/tls/$label.strata" LD_PRELOAD="$PWD/$rt/libstrata_runtime.so" \
    timeout -s KILL "$limit" "$@" > "$OUT/tls/$label.out" 2>&1
  local rc=$? t1=$(date +%s%N)
  echo "$label rc=$rc $(( (t1 - t0) / 1000000 )) ms $([ $rc = 137 ] && echo HUNG)"
}
for i in $(seq 1 "$RUNS"); do
  for v in old new; do
    rt=$OLD; [ $v = new ] && rt=$NEW
    run $rt "stress-$v-$i" 10 .device/stress/strata_rt_stress tls_dlopen "$PWD/.device/stress/libstrata_rt_tls_module.so" 300
  done
done | tee "$OUT/tls/stress.txt"
for i in $(seq 1 "$RUNS"); do
  for v in old new; do
    rt=$OLD; [ $v = new ] && rt=$NEW
    run $rt "import-$v-$i" 40 python3 -c "import transformers; from transformers import GPT2LMHeadModel, GPT2Config; import sklearn.linear_model; print('imported')"
  done
done | tee "$OUT/tls/summary.txt"
echo "hung: stress old $(grep -c "old.*HUNG" "$OUT/tls/stress.txt"), new $(grep -c "new.*HUNG" "$OUT/tls/stress.txt"); import old $(grep -c "old.*HUNG" "$OUT/tls/summary.txt"), new $(grep -c "new.*HUNG" "$OUT/tls/summary.txt")"
