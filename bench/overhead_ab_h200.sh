#!/usr/bin/env bash
# One device call: what Strata's full GPU collection costs inside each process
# (bench/profiler_comparison.py --ab: collection switched on and off in alternating blocks),
# beside CUPTI's own floor (Strata's activity kinds, no Strata) and, with RT_B, another runtime
# (e.g. the one before a change); plus the host's system-call cost (getpid), which every
# per-call system call of a runtime pays. Carry .device/ (RT and RT_B folders with
# libstrata_runtime.so; libunwind8_*.deb).
#   WORKLOADS=tiny-kernels,gpt2-decode RT=.device/rt-new RT_B=.device/rt-old ROUNDS=2 \
#     bash bench/overhead_ab_h200.sh "$OUT"
# CLI: a strata CLI to compare sampled with full profiles there (compare.txt).
# TIMEOUT (s, default 150): a run past it has its threads' state and stacks taken, then is killed.
set -uo pipefail
OUT="${1:?output folder}"
RT="${RT:-.device/rt-new}"
source bench/device_env.sh
W="$OUT/ab"; mkdir -p "$W"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ; nproc
  python3 - <<'PY'
import os, time
n = 200000
def loop(f):
    t0 = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t0) / n * 1e9
base = min(loop(int) for _ in range(3))
print(f"getpid: {min(loop(os.getpid) for _ in range(3)) - base:.0f} ns a call (Python loop minus an empty call)")
print(f"clock_gettime(CLOCK_MONOTONIC): {min(loop(time.monotonic_ns) for _ in range(3)) - base:.0f} ns a call (the same)")
PY
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>&1) (available: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource 2>&1))"
} 2>&1 | tee "$W/host.txt"
b=()
[ -n "${RT_B:-}" ] && b=(--runtime-b "../$RT_B/libstrata_runtime.so")
(cd bench && timeout ${AB_SECONDS:-540} python3 profiler_comparison.py --ab --runtime "../$RT/libstrata_runtime.so" "${b[@]}" \
  --out "$W/runs" --workloads "${WORKLOADS:?}" --rounds "${ROUNDS:-2}" --pairs "${PAIRS:-6}" --cpus 2-5 --timeout ${TIMEOUT:-150} \
  ${CONFIGS:+--configs "$CONFIGS"}) > "$W/ab.txt" 2> "$W/ab.err"
echo "rc $?" >> "$W/ab.txt"
# With CLI (a strata CLI that runs there, e.g. a stripped build/bin/strata carried in .device):
# each sampled profile's line shares and scaled GPU total against each full (strata-long) profile
# of the same workload, computed here because the machine and its profiles are gone after the call.
if [ -n "${CLI:-}" ]; then
  for s in "$W"/runs/*-strata-sampled-*.strata; do
    [ -e "$s" ] || continue
    w=$(basename "$s" | sed 's/-strata-sampled-.*//')
    for f in "$W"/runs/"$w"-strata-long-*.strata; do
      [ -e "$f" ] || continue
      echo "$(basename "$f") $(basename "$s") $(python3 bench/gpu_sampled_tracing.py --cli "$CLI" --compare "$f" "$s" 2>&1 | tail -1)"
    done
  done > "$W/compare.txt"
  cat "$W/compare.txt"
fi
# At most 8 files of 16 MiB come back: the text files, and the runs folder as one archive
# without the profiles over KEEP_MB (default 3).
find "$W/runs" -name '*.strata' -size +"${KEEP_MB:-3}"M -delete
tar -C "$W" -czf "$W/runs.tar.gz" runs && rm -rf "$W/runs"
grep -vE '^\{' "$W/ab.txt" | tail -60
tail -5 "$W/ab.err"
