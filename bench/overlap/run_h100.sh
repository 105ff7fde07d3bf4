#!/bin/bash
# The overlap analysis's validation on the H100 (one command):
#   bash bench/overlap/run_h100.sh OUTDIR [SIZE] [RESCALE_STEPS]
# builds the late-arrive kernel and its fixed twin (bench/overlap/build.sh, nvcc sm_90a) unless
# OVERLAP_BENCH_OUT already holds them, runs each plain (timing truth, median of 50 launches) and
# with markers (the region buffer: OUTDIR/late.bin, OUTDIR/fixed.bin with sidecars), then prints
# the analysis's prediction for the twin against its measurement (bench/overlap/predict.py, with
# the strata CLI at $STRATA or build/bin/strata; without one, run that script here afterwards on
# the fetched OUTDIR).
set -o pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?usage: run_h100.sh OUTDIR [SIZE] [RESCALE_STEPS]}
SIZE=${2:-512}
RESCALE=${3:-24}
B=${OVERLAP_BENCH_OUT:-build-overlap}
mkdir -p "$OUT"
[ -x "$B/late_plain" ] || bash bench/overlap/build.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/smi.txt"
: > "$OUT/runs.jsonl"
for v in late fixed; do
  for kind in plain markers; do
    timeout 120 "$B/${v}_${kind}" "$OUT" "$SIZE" "$RESCALE" | tee -a "$OUT/runs.jsonl" || { echo "$v $kind failed"; exit 1; }
  done
done
STRATA=${STRATA:-build/bin/strata}
if [ -x "$STRATA" ]; then
  python3 bench/overlap/predict.py "$OUT" --strata "$STRATA" | tee "$OUT/prediction.txt"
else
  echo "no strata CLI at $STRATA: run  python3 bench/overlap/predict.py $OUT  where one is"
fi
