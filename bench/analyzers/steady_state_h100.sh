#!/usr/bin/env bash
# One device call: what the eager bf16 transformer case's profile lacks to judge its steady state.
# The profile of bench/analyzers/profiler_time_h100.sh has no time order: no per-step times (the
# program printed only the median of the timed steps), no GPU timeline (section 11 came later), and
# Strata's operator recording (RecordFunction) only partly in profiler_time. This records:
#   - every step's time, the warm-up steps too (`case_studies.py --step-times`), without Strata
#     (2 runs) and under Strata: how much one-time work the first warm-up steps hold, and how long
#     a steady step takes with and without Strata;
#   - the case under Strata with the GPU activity timeline (section 11, on by default; exported as
#     Chrome trace JSON): the GPU's busy time per step and per loop on its own clock;
#   - the case under Strata without operator recording (STRATA_TORCH_PLUGIN names no plugin):
#     the step's cost of RecordFunction's callbacks, which profiler_time does not hold;
#   - the findings of the CLI carried with the runtime on both profiles.
#   STRATA_RUNTIME=.device/rt-W/libstrata_runtime.so STRATA_CLI=.device/rt-W/strata \
#     bash bench/analyzers/steady_state_h100.sh "$OUT"
# Carry .device/rt-W (runtime + CLI built from this tree) and .device/libunwind8_*.deb. About 4 minutes.
set -uo pipefail
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:?}" CLI="${STRATA_CLI:?}" PY=python3 CS=bench/analyzers/case_studies.py
W=/tmp/steady END=${CASE_END_S:-420}
. bench/analyzers/case_study_runs.sh
case_study_setup
ARGS=(transformer --steps 20 --precision bf16 --step-times)
for round in 1 2; do
  time_left 120 "plain round $round" || break
  timeout 120 "$PY" "$CS" "${ARGS[@]}" >> "$W/plain.log" 2>&1; echo "plain rc $?" >> "$W/plain.log"
done
record eager_bf16 200 "${ARGS[@]}"
if time_left 200 "record eager_bf16_noops"; then
  export STRATA_TORCH_PLUGIN=/nonexistent/no-operator-plugin.so
  record eager_bf16_noops 200 "${ARGS[@]}"
  unset STRATA_TORCH_PLUGIN
fi
[ -f "$W/eager_bf16.strata" ] && "$CLI" export "$W/eager_bf16.strata" --format chrome -o "$W/eager_bf16.timeline.json" \
  > "$W/export.log" 2>&1
grep -h "step_ms\|warmup_ms" "$W/plain.log" "$W"/*.record.log
grep -o '"judged_duration"[^}]*\|"gpu_busy_share"[^}]*' "$W"/*.findings.json
rm -f "$W"/*.trace.json
tar -C "$W" -czf "$OUT/steady_state.tar.gz" .
