#!/usr/bin/env bash
# After bench/real_models/fused_lines_h100.sh: per profile, how many frames carry fused lines
# (JSON report `fused_lines`), how many lines they name, and how many frames are still named
# "fuses ..." (must be 0 for a runtime of this branch).
#   bash bench/real_models/fused_lines_check.sh OUT   (OUT holds real_models.tar.gz)
set -euo pipefail
OUT="${1:?folder with real_models.tar.gz}"
STRATA="${STRATA:-build/bin/strata}"
D="$(mktemp -d)"; trap 'rm -rf "$D"' EXIT
tar -C "$D" -xzf "$OUT/real_models.tar.gz"
for p in "$D"/*.strata; do
  "$STRATA" report "$p" --view flat --format json --limit 0 | python3 -c '
import json, sys
d = json.load(sys.stdin)
fused = [n for n in d["nodes"] if "fused_lines" in n]
lines = sum(len(n["fused_lines"]) for n in fused)
named = sum(1 for n in d["nodes"] if n["name"].startswith("fuses "))
print(f"{sys.argv[1]}: {len(fused)} fused frames naming {lines} lines; {named} frames named \"fuses ...\"")
' "$(basename "$p")"
done
