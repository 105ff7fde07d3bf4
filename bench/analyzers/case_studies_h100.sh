#!/usr/bin/env bash
# DeepContext-style case studies, each finding's advice applied and measured, on the GPU machine
# (PyTorch with CUDA; random weights, nothing downloaded):
#   (a) a loader-bound training loop (bench/analyzers/case_studies.py loader: a DataLoader whose
#       Dataset does CPU work per item) with num_workers=0 recorded under Strata and analyzed; then
#       its step time without Strata, num_workers=0 against the count the data-loader finding
#       advises (its cpu_cores evidence; the machine's cores when the rule said nothing),
#       alternating, 3 runs each;
#   (b) a transformer encoder trained in fp32 (case_studies.py transformer), recorded and
#       analyzed; when a GPU hotspot is the library's matrix multiplies (advice: TF32 or bf16),
#       fp32 against TF32 and bf16 autocast, alternating, 3 runs each.
# On the GPU machine, from the repository root (the recording preloads the runtime; the CLI built
# from the same tree analyzes there, if carried):
#   STRATA_RUNTIME=.device/rt-E/libstrata_runtime.so STRATA_CLI=.device/rt-E/strata \
#     bash bench/analyzers/case_studies_h100.sh "$OUT"
# Carry .device/rt-E (the runtime and the CLI) and .device/libunwind8_*.deb. About 5 minutes; every
# run has a time limit and none starts that could end past 510 s. Everything (profiles, findings, logs, the
# summary as text and JSON) ends up in $OUT/case_studies.tar.gz, the summary also in
# $OUT/summary.txt (the device tool returns few files); the summary is printed at the end.
set -u
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:-.device/rt-E/libstrata_runtime.so}"
CLI="${STRATA_CLI:-.device/rt-E/strata}"
PY="${PYTHON:-python3}"
CS=bench/analyzers/case_studies.py
# Work outside $OUT: only the tarball and the summary go back (the device returns few files).
W=/tmp/strata-case-studies
# Nothing starts that could end past END seconds (each run's time limit counted in): under 9 minutes.
END=${CASE_END_S:-510}
. bench/analyzers/case_study_runs.sh
case_study_setup

# (a) the loader-bound loop.
record loader_base 150 loader --workers 0 --steps 30
workers=""
[ -f "$W/loader_base.findings.json" ] && workers=$("$PY" bench/analyzers/case_study_plan.py workers "$W/loader_base.findings.json")
if [ -z "$workers" ]; then
  workers=$(nproc)
  echo "loader: no data-loader finding to read the advice from; measuring num_workers=$workers (the cores)" | tee -a "$W/plan.txt"
else
  echo "loader: the data-loader finding advises num_workers=$workers" | tee -a "$W/plan.txt"
fi
alternate "$W/loader.log" 60 3 "loader --workers 0" "loader --workers $workers"

# (b) the matmul-heavy transformer, fp32 against the precisions the GEMM hotspot advises.
record transformer_fp32 150 transformer --steps 20
precisions=""
[ -f "$W/transformer_fp32.findings.json" ] && precisions=$("$PY" bench/analyzers/case_study_plan.py precisions "$W/transformer_fp32.findings.json")
if [ -z "$precisions" ]; then
  [ -x "$CLI" ] && echo "transformer: no GEMM hotspot advising TF32/bf16: not measured" | tee -a "$W/plan.txt"
  [ -x "$CLI" ] || { precisions="tf32 bf16"; echo "transformer: no CLI to read the advice; measuring tf32 and bf16" | tee -a "$W/plan.txt"; }
else
  echo "transformer: the GEMM hotspot advises: $precisions" | tee -a "$W/plan.txt"
fi
if [ -n "$precisions" ]; then
  variants=("transformer --steps 30")
  for p in $precisions; do variants+=("transformer --steps 30 --precision $p"); done
  alternate "$W/transformer.log" 60 3 "${variants[@]}"
fi

logs=()
for l in "$W/loader.log" "$W/transformer.log"; do [ -f "$l" ] && logs+=("$l"); done
[ ${#logs[@]} -gt 0 ] && "$PY" bench/analyzers/case_study_summary.py --json "$W/summary.json" "${logs[@]}" | tee "$W/summary.txt"
echo "total ${SECONDS} s" | tee -a "$W/summary.txt"
tar -C "$W" -czf "$OUT/case_studies.tar.gz" .
cp "$W/summary.txt" "$OUT/summary.txt"
ls -l "$OUT"
