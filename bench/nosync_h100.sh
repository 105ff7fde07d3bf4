#!/usr/bin/env bash
# After synchronization records became opt-in: GPT-2 decoding inside one process
# (bench/capture_ab.py: collection on / off / before) and tiny kernels across processes (full and
# sampled), on the GPU machine:  bash bench/nosync_h100.sh "$OUT"   (carry .device/rt-E and the libunwind deb)
set -u
OUT="${1:?output folder}"
RT=.device/rt-E/libstrata_runtime.so
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" STRATA_CACHE_DIR=/tmp/strata-cache
STRATA_RUNTIME="$RT" timeout 100 bash bench/launch_cost_h100.sh "$OUT/tiny" --workloads tiny-kernels --rounds 3 --cpus 2-5 \
  --configs "+ operators (full);sampled 10/100" > "$OUT/tiny.log" 2>&1
timeout 200 python3 bench/capture_ab.py --runtime "$RT" --out /tmp/ab --rounds 2 --cpus 2-5 > "$OUT/ab.log" 2>&1
grep -E "^  |x[0-9]" "$OUT/tiny.log"; grep -v "^$" "$OUT/ab.log" | tail -9
