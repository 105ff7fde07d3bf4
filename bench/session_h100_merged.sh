#!/usr/bin/env bash
# One device call after merging the session's branches: compiled ViT and the flax step recorded
# again (fused kernels' typed source lines, bench/real_models/fused_lines_h100.sh) and the
# overlap analysis's late-arrive validation (bench/overlap/run_h100.sh). Carry .device/rt-J
# (libstrata_runtime.so, strata) and .device/libunwind8_*.deb.
#   bash bench/session_h100_merged.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
STRATA_RUNTIME=.device/rt-J/libstrata_runtime.so timeout 330 bash bench/real_models/fused_lines_h100.sh "$OUT"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
STRATA=.device/rt-J/strata timeout 200 bash bench/overlap/run_h100.sh /tmp/overlap 2>&1 | tail -30
tar -C /tmp -czf "$OUT/overlap.tar.gz" overlap
ls -l "$OUT"
