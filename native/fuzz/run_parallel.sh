#!/usr/bin/env bash
# A long fuzz run of the profile reader (and the views, reports and region decoder it drives) on
# many cores at once: N libFuzzer jobs sharing one corpus, each for SECONDS, then the executions
# of all jobs summed and any crash listed. Used on the GPU machine's 16 cores, which this
# project's 2-core machine does not have.
#   bash native/fuzz/run_parallel.sh FUZZER SEEDS_TOOL WORKDIR [JOBS] [SECONDS]
set -uo pipefail
FUZZER="${1:?profile_reader_fuzzer}"; SEEDS="${2:?strata_fuzz_seeds}"; WORK="${3:?work dir}"
JOBS="${4:-$(nproc)}"; SECONDS_EACH="${5:-300}"
rm -rf "$WORK" && mkdir -p "$WORK/seeds" "$WORK/corpus" "$WORK/logs" || exit 1
"$SEEDS" "$WORK/seeds" >/dev/null || exit 1
cd "$WORK/logs" || exit 1
"$FUZZER" -jobs="$JOBS" -workers="$JOBS" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "$WORK/corpus" "$WORK/seeds" > "$WORK/fuzz.out" 2>&1
execs=$(cat fuzz-*.log 2>/dev/null | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
crashes=$(ls "$WORK"/logs/crash-* "$WORK"/logs/leak-* "$WORK"/logs/timeout-* "$WORK"/logs/oom-* 2>/dev/null | wc -l)
echo "jobs $JOBS x ${SECONDS_EACH}s: $execs executions, $crashes crash/leak/timeout/oom inputs, corpus $(ls "$WORK/corpus" | wc -l) files"
ls "$WORK"/logs/crash-* "$WORK"/logs/leak-* "$WORK"/logs/timeout-* "$WORK"/logs/oom-* 2>/dev/null
grep -h "ERROR: \|SUMMARY: " fuzz-*.log 2>/dev/null | sort | uniq -c | head -20
