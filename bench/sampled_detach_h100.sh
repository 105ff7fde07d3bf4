#!/usr/bin/env bash
# Tiny kernels and GPT-2 decoding: full tracing against sampled tracing with CUPTI detached
# between windows (the default) and left attached (STRATA_GPU_DETACH=0).
#   bash bench/sampled_detach_h100.sh   (on the GPU machine, $OUT set; carry as launch_cost_h100.sh)
# The first run (2026-11-24 12:40 UTC, docs/benchmarks.md) used the runtime of that morning, where
# detaching was the opt-in STRATA_GPU_SAMPLING_DETACH=1 and the configurations were named
# "sampled 10/100" (attached) and "sampled 10/100, detached".
set -u
RT=${STRATA_RUNTIME:-.device/rt-D/libstrata_runtime.so}
mkdir -p $OUT/tiny
STRATA_RUNTIME=$RT timeout 130 bash bench/launch_cost_h100.sh "$OUT/tiny" --workloads tiny-kernels --rounds 3 --cpus 2-5 --configs "+ operators (full);sampled 10/100;sampled 10/100, attached" > $OUT/tiny.log 2>&1
echo "tiny rc $?" >> $OUT/tiny.log
rm -rf /tmp/lc
STRATA_RUNTIME=$RT timeout 150 bash bench/launch_cost_h100.sh "$OUT" --workloads gpt2-decode --rounds 2 --cpus 2-5 --configs "+ operators (full);sampled 10/100;sampled 10/100, attached" > $OUT/lc.log 2>&1
echo "lc rc $?" >> $OUT/lc.log
grep -E "round|x1|x0|rc" $OUT/tiny.log $OUT/lc.log
