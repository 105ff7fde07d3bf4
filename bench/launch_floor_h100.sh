#!/usr/bin/env bash
# CUPTI's floor and its lasting cost, torch.profiler's, and Strata's capture-range A/B (CUPTI
# detached between ranges, the default, and left attached), all inside one process each
# (bench/cupti_floor.py, bench/capture_ab.py); then tiny kernels under sampled tracing, detached
# against attached (bench/sampled_detach_h100.sh with --workloads tiny-kernels only). On the GPU
# machine:
#   STRATA_RUNTIME=.device/rt-E/libstrata_runtime.so bash bench/launch_floor_h100.sh "$OUT"
# Carry the stripped runtime and .device/libunwind8_*.deb. Everything ends up in $OUT/floor.tar.gz
# (the device tool returns few files); each log is written as its part ends.
set -u
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:-.device/rt-E/libstrata_runtime.so}"
W="$OUT/w"
mkdir -p "$W" /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STRATA_CACHE_DIR=/tmp/strata-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ; } > "$W/host.txt"
for w in gpt2-decode tiny-kernels; do
  taskset -c 2-5 timeout 150 python3 bench/cupti_floor.py --workload $w --tracer cupti --json "$W/floor-$w.json" \
    > "$W/floor-$w.log" 2>&1; echo "rc $?" >> "$W/floor-$w.log"
done
timeout 240 python3 bench/capture_ab.py --runtime "$RT" --out "$W/ab" --rounds 2 --cpus 2-5 > "$W/ab.log" 2>&1
echo "rc $?" >> "$W/ab.log"
for f in "$W"/ab/*.strata; do echo "$f: $(strings "$f" | grep -m1 -o 'captured between[^;]*')"; done >> "$W/ab.log"
mkdir -p "$W/tiny"
STRATA_RUNTIME="$RT" timeout 130 bash bench/launch_cost_h100.sh "$W/tiny" --workloads tiny-kernels --rounds 3 --cpus 2-5 \
  --configs "+ operators (full);sampled 10/100;sampled 10/100, attached" > "$W/tiny.log" 2>&1
echo "rc $?" >> "$W/tiny.log"
tar -C "$W" -czf "$OUT/floor.tar.gz" .
tail -n 8 "$W"/floor-*.log; grep -v "^$" "$W/ab.log" | tail -n 12; grep -E "x[0-9]|rc" "$W/tiny.log"
