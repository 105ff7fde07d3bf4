#!/usr/bin/env bash
# The cost of profiling a fork-heavy shell script (pyenv's shims, configure scripts, wrappers):
# 1,000 command substitutions, each a fork whose child writes and exits. Plain, under strata
# record (children followed, the default) and with --no-children, alternating, ROUNDS rounds.
#   bash bench/fork/fork_cost.sh [STRATA_CLI ...]     (default: build/bin/strata)
set -uo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
CLIS=("$@"); [ ${#CLIS[@]} -eq 0 ] && CLIS=(build/bin/strata)
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
printf 'for j in $(seq 1000); do x=$(echo $j); done\n' > "$W/forks.sh"
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
echo "machine: $(nproc) cores, $(uname -r); $(date -u +%F)"
for r in $(seq "$ROUNDS"); do
  line="round $r: plain $(secs bash "$W/forks.sh") s"
  for cli in "${CLIS[@]}"; do
    line+="; $cli: children $(secs "$cli" record -o "$W/f.strata" -- bash "$W/forks.sh") s"
    line+=", --no-children $(secs "$cli" record --no-children -o "$W/f.strata" -- bash "$W/forks.sh") s"
    rm -f "$W"/f*.strata
  done
  echo "$line"
done
