#!/usr/bin/env bash
# One device call: the GPU activity timeline on real programs. Records torchvision ResNet-18
# training (batch 32, random weights, 6 steps) and a small JAX/flax step under the runtime built
# from this branch, checks each profile's timeline (bench/timeline/check_timeline.py: launch order on
# a stream, inside the run's host window, count and summed time equal the tree's gpu_time) and
# exports it as Perfetto with the CLI built from this branch. Also: ResNet-18 with the timeline off
# (STRATA_GPU_TIMELINE=0) and capped (=500: the dropped count), and without the runtime, for the
# steady step times. Carry: .device/rt-timeline (libstrata_runtime.so, strata), .device/libunwind8_*.deb.
#   bash bench/timeline/record_h100.sh "$OUT"
# Writes $OUT/timeline/{NAME.strata,NAME.out,NAME.check.json,NAME.pftrace} and prints a summary.
set -uo pipefail
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:-.device/rt-timeline/libstrata_runtime.so}"
CLI="${STRATA_CLI:-.device/rt-timeline/strata}"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
export STRATA_CACHE_DIR=/tmp/strata-cache
P="$OUT/timeline"; mkdir -p "$P"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "date: $(date -u +%FT%TZ)"

# NAME WORKLOAD STEPS TIMEOUT_S [ENV...]: one profiled run, then its check and its Perfetto export.
# Timeouts sum to under 8 minutes (the first torch run also builds the operator plugin).
profiled() {
  local name=$1 workload=$2 steps=$3 limit=$4; shift 4
  local s=$(date +%s%N)
  timeout $limit env "$@" STRATA_OUTPUT="$P/$name.strata" LD_PRELOAD="$RT" \
    python3 bench/timeline/workloads.py "$workload" "$steps" > "$P/$name.out" 2>&1
  local rc=$?
  printf '%-14s exit %3d  %6d ms  %9s bytes  %s\n' "$name" $rc $(( ($(date +%s%N) - s) / 1000000 )) \
    "$(stat -c %s "$P/$name.strata" 2>/dev/null)" "$(grep -o 'steady step.*' "$P/$name.out" | tail -1)"
  [ $rc -eq 0 ] || tail -5 "$P/$name.out"
  [ -f "$P/$name.strata" ] || return
  python3 bench/timeline/check_timeline.py "$P/$name.strata" > "$P/$name.check.json"
  echo "  check exit $? : $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print({k: d.get(k) for k in ("records","dropped","kinds","stream_overlaps","window","failures")})' "$P/$name.check.json")"
  local e=$(date +%s%N)
  "$CLI" export "$P/$name.strata" --format perfetto -o "$P/$name.pftrace" > "$P/$name.export.out" 2>&1
  echo "  perfetto export exit $? in $(( ($(date +%s%N) - e) / 1000000 )) ms: $(stat -c %s "$P/$name.pftrace" 2>/dev/null) bytes $(head -c 300 "$P/$name.export.out")"
}

profiled resnet18 resnet18 6 150
profiled flax flax 6 100
profiled resnet18_off resnet18 6 80 STRATA_GPU_TIMELINE=0
profiled resnet18_cap resnet18 6 80 STRATA_GPU_TIMELINE=500
s=$(date +%s%N)
timeout 60 python3 bench/timeline/workloads.py resnet18 6 > "$P/resnet18_plain.out" 2>&1
printf '%-14s exit %3d  %6d ms  %s\n' resnet18_plain $? $(( ($(date +%s%N) - s) / 1000000 )) "$(grep -o 'steady step.*' "$P/resnet18_plain.out" | tail -1)"
ls -l "$P"
