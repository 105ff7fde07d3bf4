#!/usr/bin/env bash
# NOT YET RUN (needs the H100). For each case study: the step time without Strata (base and fixed:
# the speedup of the analyzers' suggestion), then a recording of the base variant and its findings
# (the finding that suggests the change, at its CASE_* line). Output: one block per case.
# usage: bench/analyzers/run_case_studies.sh [STRATA] [PYTHON]
set -euo pipefail
cd "$(dirname "$0")/../.."
STRATA="${1:-build/bin/strata}"
PY="${2:-python3}"
OUT="${OUT:-/tmp/strata-case-studies}"
mkdir -p "$OUT"
for c in recommender unet loader transformer; do
  echo "== $c"
  base=$("$PY" bench/analyzers/case_studies.py "$c")
  fixed=$("$PY" bench/analyzers/case_studies.py "$c" --fixed)
  echo "$base"; echo "$fixed"
  "$PY" - "$base" "$fixed" <<'PYEOF'
import sys
b = float(sys.argv[1].split("step_ms=")[1]); f = float(sys.argv[2].split("step_ms=")[1])
print(f"speedup x{b / f:.2f}")
PYEOF
  "$STRATA" record -o "$OUT/$c.strata" -- "$PY" bench/analyzers/case_studies.py "$c" >/dev/null
  "$STRATA" analyze "$OUT/$c.strata" || true
done
