#!/usr/bin/env bash
# The CPU sampler's handler cost with libunwind's fast trace in the handler (the default) against
# the unw_step walk (STRATA_UNWIND_FAST_SIGNAL=0), on the GPU machine, alternating, 3 rounds:
#   - the JAX/flax MLP training step (bench/comparison_workloads.py jax-train; no operators, so
#     the handler takes the fast trace), 200 steps: median step and the profile's handler cost;
#   - 32 CPU-bound Python threads (bench/python_threads.py's workload through its own driver).
# Each configuration is its own process; "none" runs without Strata in the same rotation.
#   STRATA_RUNTIME=.device/rt-A/libstrata_runtime.so STRATA_CLI=.device/rt-A/strata \
#     bash bench/sampler_handler_h100.sh "$OUT"
# Carry .device/rt-A and .device/libunwind8_*.deb. About 4 minutes.
set -u
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:?}" CLI="${STRATA_CLI:?}"
W=/tmp/handler; rm -rf "$W"; mkdir -p "$W" /tmp/strata-unwind
dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1 STRATA_CACHE_DIR=/tmp/strata-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "date: $(date -u +%FT%TZ)"
handler() { "$CLI" report "$1" --format json 2>/dev/null | python3 -c 'import json, re, sys
m = json.load(sys.stdin)["profile"]["meta"]
h = re.search(r"handler ([\d.]+) us", m.get("sampler", ""))
print("handler_us=%s samples=%s unwind_failures=%s" % (h.group(1) if h else "?", m.get("samples"), m.get("unwind_failures")))'; }
THREADS='
import threading
def spin():
    s = 0
    for i in range(3000000): s += i * i
ts = [threading.Thread(target=spin) for _ in range(32)]
[t.start() for t in ts]; [t.join() for t in ts]'
for round in 1 2 3; do
  for cfg in none fast walk; do
    env=(); [ "$cfg" = walk ] && env=(STRATA_UNWIND_FAST_SIGNAL=0)
    prof="$W/jax_${cfg}_$round.strata"
    if [ "$cfg" = none ]; then
      line=$(taskset -c 2-5 python3 bench/comparison_workloads.py jax-train none 200 "$W" 2>/dev/null | grep '^{' | tail -1)
      echo "jax round $round $cfg: $line"
    else
      line=$(env "${env[@]}" STRATA_OUTPUT="$prof" LD_PRELOAD="$RT" taskset -c 2-5 python3 bench/comparison_workloads.py \
        jax-train none 200 "$W" 2>/dev/null | grep '^{' | tail -1)
      echo "jax round $round $cfg: $line $(handler "$prof")"
    fi
  done
done
python3 bench/python_threads.py --help > /dev/null 2>&1 && \
  timeout 150 python3 bench/python_threads.py --runtime "fast=$RT" --threads 32 --rounds 3 --work 3000000 2>&1 | tail -12
for t in 1 2 3; do
  for cfg in walk fast; do
    fast=1; [ "$cfg" = walk ] && fast=0
    timeout 60 env STRATA_UNWIND_FAST_SIGNAL=$fast STRATA_OUTPUT="$W/thr_${cfg}_$t.strata" LD_PRELOAD="$RT" python3 -c "$THREADS"
    echo "threads $cfg $t: $(handler "$W/thr_${cfg}_$t.strata")"
  done
done
tar -C "$W" -czf "$OUT/handler.tar.gz" --exclude='*.json' . 2>/dev/null
