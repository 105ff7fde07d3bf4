#!/usr/bin/env bash
# The demo: installs what is missing, builds, profiles the bundled example (and the GPU example
# when a GPU is present), prints the top of the profile, and opens it in a real VS Code
# (code-server) with Strata installed and the flame graph open. Ctrl-C stops code-server.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PORT="${STRATA_DEMO_PORT:-8377}"
bash scripts/install-deps.sh
bash scripts/build.sh
bash scripts/install-code-server.sh .tools/code-server

mkdir -p build/demo
PROFILE="$ROOT/build/demo/train_loop.strata"
build/bin/strata record -o "$PROFILE" -- python3 examples/train_loop.py
echo
build/bin/strata report "$PROFILE" --limit 25
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  build/bin/strata record -o "$ROOT/build/demo/gpu_matmul.strata" -- python3 examples/gpu_matmul.py \
    && build/bin/strata report "$ROOT/build/demo/gpu_matmul.strata" --limit 15 || true
fi

# A throwaway VS Code profile: Strata installed from this checkout, the profile opened on start.
UD="$ROOT/build/demo/user-data"; EXT="$ROOT/build/demo/extensions"
rm -rf "$UD" "$EXT"; mkdir -p "$UD/User" "$EXT"
cat > "$UD/User/settings.json" <<JSON
{"security.workspace.trust.enabled": false, "workbench.startupEditor": "none",
 "git.openRepositoryInParentFolders": "never", "strata.openOnStartup": "$PROFILE"}
JSON
ln -s "$ROOT/extension" "$EXT/strata.strata-0.1.0"
echo
echo "Strata demo: open http://127.0.0.1:$PORT/?folder=$ROOT/examples  (Ctrl-C to stop)"
exec node .tools/code-server/node_modules/code-server/out/node/entry.js --auth none \
  --bind-addr "127.0.0.1:$PORT" --disable-telemetry --user-data-dir "$UD" --extensions-dir "$EXT" \
  "$ROOT/examples"
