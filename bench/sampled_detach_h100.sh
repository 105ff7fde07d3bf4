#!/usr/bin/env bash
# Next measurement (not yet run: the session ran out of device time): tiny kernels and GPT-2
# decoding, full against sampled tracing with CUPTI detached between windows and left attached.
#   bash bench/sampled_detach_h100.sh   (on the GPU machine, $OUT set; carry as launch_cost_h100.sh)
set -u
mkdir -p $OUT/tiny
STRATA_RUNTIME=.device/rt-C/libstrata_runtime.so timeout 130 bash bench/launch_cost_h100.sh "$OUT/tiny" --workloads tiny-kernels --rounds 3 --cpus 2-5 --configs "+ entry traces (full);sampled 10/100;sampled 10/100, detached" > $OUT/tiny.log 2>&1
echo "tiny rc $?" >> $OUT/tiny.log
rm -rf /tmp/lc
STRATA_RUNTIME=.device/rt-C/libstrata_runtime.so timeout 150 bash bench/launch_cost_h100.sh "$OUT" --workloads gpt2-decode --rounds 2 --cpus 2-5 --configs "+ entry traces (full);sampled 10/100;sampled 10/100, detached" > $OUT/lc.log 2>&1
echo "lc rc $?" >> $OUT/lc.log
grep -E "round|x1|x0|rc" $OUT/tiny.log $OUT/lc.log
