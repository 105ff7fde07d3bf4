#!/usr/bin/env bash
# DeepContext's "transformer under torch.compile" case with Strata's own advice, on the GPU machine:
# the encoder of case_studies.py compiled (DeepContext's fixed variant) is the base. It is recorded
# under Strata and analyzed; what the findings advise (a GEMM hotspot: TF32 or bf16 autocast;
# kernel-fusion on compiled kernels: CUDA graphs, mode="reduce-overhead") is measured against it
# without Strata, alternating, 3 runs each. Also recorded: the eager encoder in bf16 (the eager
# case's advice applied: does Strata then advise torch.compile?) and, time allowing, the compiled
# encoder in bf16 (what is left after the advice). Profiles go back, so the findings can be read
# again with a newer CLI.
# On the GPU machine, from the repository root:
#   STRATA_RUNTIME=.device/rt-M/libstrata_runtime.so STRATA_CLI=.device/rt-M/strata \
#     bash bench/analyzers/compiled_transformer_h100.sh "$OUT"
# Carry .device/rt-M (runtime + CLI) and .device/libunwind8_*.deb. Under 8 minutes (CASE_END_S,
# default 470: no run starts that could end later); the first round compiles each variant cold.
# $OUT/compiled_transformer.tar.gz holds the profiles, findings, logs and summary; $OUT/summary.txt
# the summary, also printed at the end.
set -u
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:-.device/rt-M/libstrata_runtime.so}"
CLI="${STRATA_CLI:-.device/rt-M/strata}"
PY="${PYTHON:-python3}"
CS=bench/analyzers/case_studies.py
W=/tmp/strata-compiled-transformer
END=${CASE_END_S:-470}
. bench/analyzers/case_study_runs.sh
case_study_setup

base="compiled_transformer --steps 30"
# Round 1 compiles every variant cold (Inductor's cache then serves the later rounds and the
# recordings); the eager bf16 variant is the eager case's advice applied, for the compile question.
cold=("$base" "$base --precision tf32" "$base --precision bf16" "transformer --steps 30 --precision bf16")
alternate "$W/runs.log" 200 1 "${cold[@]}"

record compiled_fp32 240 compiled_transformer --steps 20
plan_variants=()
if [ -f "$W/compiled_fp32.findings.json" ]; then
  precisions=$("$PY" bench/analyzers/case_study_plan.py precisions "$W/compiled_fp32.findings.json")
  mode=$("$PY" bench/analyzers/case_study_plan.py compile-mode "$W/compiled_fp32.findings.json")
  echo "compiled: GEMM precision advised: ${precisions:-none}; compile mode advised: ${mode:-none}" | tee -a "$W/plan.txt"
  [ -n "$mode" ] && plan_variants+=("$base --compile-mode $mode")
else
  why="no findings file"
  [ -f "$W/compiled_fp32.strata" ] || why="not recorded (see skipped.txt: the time budget, or the recording failed)"
  echo "compiled: no advice read: $why; TF32 and bf16 measured anyway, the advice is read later from a profile" | tee -a "$W/plan.txt"
fi

record eager_bf16 150 transformer --steps 20 --precision bf16
[ -f "$W/eager_bf16.findings.json" ] && echo "eager bf16: compile advised: $(grep -c 'torch.compile' "$W/eager_bf16.findings.txt") finding line(s) name torch.compile" | tee -a "$W/plan.txt"

# Rounds 2 and 3, the advised compile mode (if any) joining; its first run compiles cold.
[ ${#plan_variants[@]} -gt 0 ] && alternate "$W/runs.log" 200 1 "${plan_variants[@]}"
alternate "$W/runs.log" 120 2 "${cold[@]}" "${plan_variants[@]}"

record compiled_bf16 150 compiled_transformer --steps 20 --precision bf16

"$PY" bench/analyzers/case_study_summary.py --json "$W/summary.json" "$W/runs.log" | tee "$W/summary.txt"
cat "$W/plan.txt" >> "$W/summary.txt"
[ -f "$W/skipped.txt" ] && cat "$W/skipped.txt" >> "$W/summary.txt"
echo "total ${SECONDS} s" | tee -a "$W/summary.txt"
tar -C "$W" -czf "$OUT/compiled_transformer.tar.gz" .
cp "$W/summary.txt" "$OUT/summary.txt"
ls -l "$OUT"
