#!/usr/bin/env bash
# One device call: the eager bf16 transformer case (bench/analyzers/case_studies.py), whose
# cpu-latency finding came from Strata's own cost (38.6 ms a step recorded against 21.85 ms without
# Strata), recorded again with a runtime that carries its own time as the metric profiler_time;
# analyzed with the CLI of the same tree; and timed without Strata for the comparison.
#   STRATA_RUNTIME=.device/rt-P/libstrata_runtime.so STRATA_CLI=.device/rt-P/strata \
#     bash bench/analyzers/profiler_time_h100.sh "$OUT"
# Carry .device/rt-P (runtime + CLI) and .device/libunwind8_*.deb.
set -uo pipefail
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:?}" CLI="${STRATA_CLI:?}" PY=python3 CS=bench/analyzers/case_studies.py
W=/tmp/ptime END=${CASE_END_S:-400}
. bench/analyzers/case_study_runs.sh
case_study_setup
timeout 120 "$PY" "$CS" transformer --steps 20 --precision bf16 > "$W/plain.log" 2>&1; echo "plain rc $?" >> "$W/plain.log"
record eager_bf16 200 transformer --steps 20 --precision bf16
tail -3 "$W/plain.log" "$W/eager_bf16.record.log"
"$CLI" report "$W/eager_bf16.strata" --metric profiler_time --limit 1 2>&1 | grep -E "total|operators|call paths" | tee -a "$W/profiler_time.txt"
grep -o '"profiler_time_left_out"[^}]*' "$W/eager_bf16.findings.json" | tee -a "$W/profiler_time.txt"
rm -f "$W"/*.trace.json
tar -C "$W" -czf "$OUT/profiler_time.tar.gz" .
