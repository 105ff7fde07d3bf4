#!/usr/bin/env bash
# The runtime hands region buffers to an ordinary program's launches (issue 7 part 2), on the GPU
# machine. Built here and carried (carry: .device):
#   cp build-rt/lib/libstrata_runtime.so .device/stalls/lib/; cp build-rt/bin/strata_rt_dump_profile .device/stalls/bin/
#   nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -Iprofiler_runtime/include -Itest/regions \
#     test/regions/plain_app.cu -o .device/stalls/bin/plain_app
#   bash test/regions/capture_h100.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
B=.device/stalls
RT=$B/lib/libstrata_runtime.so
DUMP=$B/bin/strata_rt_dump_profile
APP=$B/bin/plain_app
echo "date: $(date -u +%FT%TZ)"
timeout 60 "$APP" 4; echo "no runtime: exit $?"
timeout 60 env STRATA_OUTPUT=/tmp/off.strata LD_PRELOAD="$RT" "$APP" 4; echo "runtime, regions off: exit $?"
"$DUMP" /tmp/off.strata 0 | grep -E "^(gpu|regions)"
timeout 120 env STRATA_OUTPUT="$OUT/regions_capture.strata" STRATA_REGIONS=all STRATA_REGIONS_MAX=3 LD_PRELOAD="$RT" "$APP" 6
echo "runtime, regions all: exit $?"
"$DUMP" "$OUT/regions_capture.strata" 0 | grep -E "^(gpu|regions)"
"$DUMP" "$OUT/regions_capture.strata" 12 2>&1 | grep -v "^ *$" | grep -B1 -A3 "\[7\]" | head -40
timeout 120 env STRATA_OUTPUT=/tmp/every.strata STRATA_REGIONS=GemmKernel STRATA_REGIONS_EVERY=2 LD_PRELOAD="$RT" "$APP" 6
echo "every 2: exit $?"; "$DUMP" /tmp/every.strata 0 | grep -E "^(regions)"
timeout 120 env STRATA_OUTPUT=/tmp/nomatch.strata STRATA_REGIONS=nosuchkernel LD_PRELOAD="$RT" "$APP" 2
echo "no match: exit $?"; "$DUMP" /tmp/nomatch.strata 0 | grep -E "^(regions)"
ls -l "$OUT"
