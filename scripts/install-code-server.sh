#!/usr/bin/env bash
# Installs a real VS Code (code-server, VS Code 1.100 for the browser) into DIR without
# downloading anything outside Debian's packages and the npm registry.
# Usage: scripts/install-code-server.sh [DIR]   (default: <repo>/.tools/code-server)
#   then: node DIR/node_modules/code-server/out/node/entry.js --auth none ...
# Needs root for apt-get. Idempotent: a finished install is detected and kept.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${1:-$ROOT/.tools/code-server}"
mkdir -p "$DIR" && DIR="$(cd "$DIR" && pwd)"
VERSION="${CODE_SERVER_VERSION:-4.100.3}"   # last release that runs on Node 20
CS="$DIR/node_modules/code-server"
if [ -f "$DIR/.code-server-$VERSION-ok" ]; then echo "code-server $VERSION already in $DIR"; exit 0; fi
need=(); for p in libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep python3 make g++; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; fi
mkdir -p "$DIR" && cd "$DIR"
[ -f package.json ] || npm init -y >/dev/null
# 1. the package itself, without its postinstall (which downloads ripgrep from the internet)
npm install --unsafe-perm --ignore-scripts --no-audit --no-fund "code-server@$VERSION" >/dev/null
npm rebuild argon2 --build-from-source >/dev/null
# 2. VS Code's own dependencies; native modules built from source with the local node headers
cd "$CS/lib/vscode"
npm install --unsafe-perm --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null
for m in node_modules/*/ node_modules/@*/*/; do
  m="${m%/}"
  [ -f "$m/binding.gyp" ] || continue
  case "$m" in *ripgrep*) continue;; esac
  (cd "$m" && npx --yes node-gyp rebuild >/dev/null 2>&1) || { echo "native build failed: $m" >&2; exit 1; }
done
mkdir -p node_modules/@vscode/ripgrep/bin && cp /usr/bin/rg node_modules/@vscode/ripgrep/bin/rg
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
(cd extensions && npm install --unsafe-perm --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
touch "$DIR/.code-server-$VERSION-ok"
echo "code-server $VERSION installed in $DIR"
echo "start: node $CS/out/node/entry.js --auth none --bind-addr 127.0.0.1:PORT --disable-telemetry --user-data-dir UD --extensions-dir EXT FOLDER"
