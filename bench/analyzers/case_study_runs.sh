# Sourced by the case-study scripts on the GPU machine (case_studies_h100.sh,
# compiled_transformer_h100.sh): the host line, the time budget, recording a case under Strata and
# analyzing it, and alternating variants without Strata.
# Needs: OUT, W (work folder), RT (runtime), CLI (strata CLI, optional), PY, CS (case_studies.py),
# END (nothing starts that could end past END seconds of the script).

# Unpacks the carried libunwind (the runtime needs it there) and writes the host's description.
case_study_setup() {
  rm -rf "$W"
  mkdir -p "$OUT" "$W" /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
  export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export STRATA_CACHE_DIR=/tmp/strata-cache PYTHONUNBUFFERED=1
  {
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    echo "cores $(nproc); $(date -u +%FT%TZ)"
    "$PY" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)'
    [ -x "$CLI" ] && echo "cli $CLI" || echo "cli: none at $CLI (findings: analyze the profiles in the tarball)"
  } > "$W/host.txt" 2>&1
  cat "$W/host.txt"
}

# time_left LIMIT WHAT: a run of at most LIMIT seconds still ends before END.
time_left() {
  local limit="$1"; shift
  [ $((SECONDS + limit)) -le "$END" ] || { echo "skipped at ${SECONDS} s: $*" | tee -a "$W/skipped.txt"; return 1; }
}

# record NAME LIMIT CASE ARGS...: records the case under the runtime as NAME (at most LIMIT s),
# then analyzes it (text and JSON) when the CLI is there.
record() {
  local name="$1" limit="$2"; shift 2
  time_left "$limit" "record $name" || return 1
  timeout "$limit" env STRATA_OUTPUT="$W/$name.strata" LD_PRELOAD="$RT" "$PY" "$CS" "$@" > "$W/$name.record.log" 2>&1
  echo "rc $?" >> "$W/$name.record.log"
  if [ -x "$CLI" ] && [ -f "$W/$name.strata" ]; then
    "$CLI" analyze "$W/$name.strata" > "$W/$name.findings.txt" 2>&1
    "$CLI" analyze "$W/$name.strata" --format json > "$W/$name.findings.json" 2>> "$W/$name.findings.txt"
    echo "== findings of $name"; cat "$W/$name.findings.txt"
  fi
}

# alternate LOG LIMIT ROUNDS VARIANT...: runs the variants (each an argument string for
# case_studies.py, at most LIMIT s each) in turn, ROUNDS rounds, appending their lines to LOG.
alternate() {
  local log="$1" limit="$2" rounds="$3"; shift 3
  for round in $(seq "$rounds"); do
    for v in "$@"; do
      time_left "$limit" "$v (round $round)" || return 0
      # shellcheck disable=SC2086
      timeout "$limit" "$PY" "$CS" $v >> "$log" 2>> "$W/runs.err" || echo "rc $? for: $v" >> "$W/runs.err"
    done
  done
}
