#!/bin/bash
# The overlap analysis's validation on the H100 with a late arrive that costs without markers
# too (producer_late_arrive.cu), one command:
#   bash bench/overlap/run_producer_h100.sh OUTDIR [SIZE]
# For each amount of the producer's `stats` work (WORK_STEPS, default "0 32 64 128 256 512"):
# the late kernel and its fixed twin, each plain (the timing truth, median of 50 launches) and
# with markers (the region buffers), into OUTDIR/w<W>/; then bench/overlap/predict.py with the
# late kernel's own record cost (--per-kernel-cost) and, for comparison, the start-up constant
# 14.7 cycles. Kernels: built into $OVERLAP_BENCH_OUT (default build-overlap-producer) with
# nvcc here unless already there (build them elsewhere with
# `KERNEL=producer_late_arrive OVERLAP_BENCH_OUT=build-overlap-producer bash bench/overlap/build.sh`
# and carry the folder). The strata CLI: $STRATA, else .device/rt-overlap/strata, else
# build/bin/strata; without one, run predict.py on the fetched OUTDIR afterwards.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?usage: run_producer_h100.sh OUTDIR [SIZE]}
SIZE=${2:-512}
WORKS=${WORK_STEPS:-"0 32 64 128 256 512"}
B=${OVERLAP_BENCH_OUT:-build-overlap-producer}
mkdir -p "$OUT"
if [ ! -x "$B/late_plain" ]; then
  NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)} KERNEL=producer_late_arrive OVERLAP_BENCH_OUT="$B" \
    bash bench/overlap/build.sh || exit 1
fi
STRATA=${STRATA:-}
for s in .device/rt-overlap/strata build/bin/strata; do [ -z "$STRATA" ] && [ -x "$s" ] && STRATA=$s; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/smi.txt"
# The SASS of both plain kernels: where ptxas put the `full` arrive (BAR.ARV) against the stats work.
if command -v cuobjdump >/dev/null; then
  for v in late fixed; do cuobjdump -sass "$B/${v}_plain" > "$OUT/sass_${v}_plain.txt" 2>&1; done
  python3 bench/overlap/check_arrive_sass.py "$OUT/sass_late_plain.txt" "$OUT/sass_fixed_plain.txt" | tee "$OUT/sass_check.txt"
fi
for W in $WORKS; do
  d="$OUT/w$W"
  mkdir -p "$d"
  : > "$d/runs.jsonl"
  for v in late fixed; do
    for kind in plain markers; do
      timeout 60 "$B/${v}_${kind}" "$d" "$SIZE" "$W" | tee -a "$d/runs.jsonl" || echo "$v $kind (work $W) failed"
    done
  done
done
if [ -z "$STRATA" ]; then
  echo "no strata CLI (.device/rt-overlap/strata, build/bin/strata): run  python3 bench/overlap/predict.py OUTDIR/w<W> --per-kernel-cost --region stats  where one is"
  exit 0
fi
echo "strata CLI: $STRATA"
for W in $WORKS; do
  d="$OUT/w$W"
  echo "=== work_steps $W"
  python3 bench/overlap/predict.py "$d" --strata "$STRATA" --per-kernel-cost --region stats > "$d/prediction.txt" 2>&1
  echo "exit $?" >> "$d/prediction.txt"
  python3 bench/overlap/predict.py "$d" --strata "$STRATA" --record-cost 14.7 --region stats > "$d/prediction_startup.txt" 2>&1
  echo "exit $?" >> "$d/prediction_startup.txt"
  grep -E "record cost|kernel \(plain|predicted twin|scaled|flagged|exit" "$d/prediction.txt"
  grep -E "predicted twin" "$d/prediction_startup.txt" | sed 's/^/start-up 14.7: /'
done
