#!/usr/bin/env bash
# Builds the N-API addon with cmake-js, offline, against the local Node's headers.
# Usage: bash native/addon/build.sh [BUILD_DIR]      (default: build)
# Output: BUILD_DIR/addon/Release/strata_addon.node  (the extension's build copies it to
# extension/dist/native/). cmake-js configures the whole tree (root CMakeLists.txt, which adds
# native/addon because cmake-js defines CMAKE_JS_INC) in its own build folder, without tests
# or fuzzers, and builds only the strata_addon target.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BUILD_DIR="${1:-${STRATA_BUILD_DIR:-build}}"
OUT="$BUILD_DIR/addon"
CMAKE_JS="$ROOT/node_modules/cmake-js/bin/cmake-js"
[ -f "$CMAKE_JS" ] || { echo "strata addon: cmake-js missing: run 'npm install' at the repository root" >&2; exit 1; }

# Headers of the Node that runs here (Debian: /usr/include/node). With nodedir set, cmake-js
# takes the headers from there and never downloads a Node distribution.
NODEDIR="${npm_config_nodedir:-$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")}"
[ -f "$NODEDIR/include/node/node_api.h" ] || { echo "strata addon: no Node headers in $NODEDIR/include/node (Debian: apt-get install nodejs-dev or libnode-dev)" >&2; exit 1; }
export npm_config_nodedir="$NODEDIR"

# A configure step that failed leaves a cache without build files; cmake-js would not rerun it.
if [ -f "$OUT/CMakeCache.txt" ] && [ ! -f "$OUT/build.ninja" ] && [ ! -f "$OUT/Makefile" ]; then rm -rf "$OUT"; fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
node "$CMAKE_JS" build --log-level warn -d "$ROOT" -O "$OUT" -T strata_addon "${gen[@]}" \
  --CDSTRATA_BUILD_TESTS=OFF --CDSTRATA_BUILD_FUZZERS=OFF
test -f "$OUT/Release/strata_addon.node"
echo "strata addon: $OUT/Release/strata_addon.node"
