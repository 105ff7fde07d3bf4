#!/bin/bash
# Records the region fixtures and overhead numbers on the lent H100 (issue 7). Build here (no GPU
# needed) with test/regions/build.sh, then on the device: bash test/regions/run_h100.sh OUTDIR
# OUTDIR/r gets <case>.bin + <case>.json per case, bench.json, harness.log, memcheck.log.
set -o pipefail
B=${REGIONS_BIN:-build-regions/regions-bin}
O=$1/r
mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$O/smi.txt"
"$B/regions_harness" "$O" 2>&1 | tee "$O/harness.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
mkdir -p /tmp/ms
STRATA_SKIP_WRAP=1 timeout 150 "$CS" --tool memcheck "$B/regions_harness" /tmp/ms --no-bench >"$O/memcheck.log" 2>&1
echo "memcheck rc=$?"; tail -3 "$O/memcheck.log"
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$CO" -sass "$B/regions_harness" >"$O/sass.txt" 2>&1 || true
(cd "$1" && tar czf regions.tgz r && rm -rf r)
