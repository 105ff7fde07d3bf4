#!/usr/bin/env bash
# Builds every part: the C++ tree (runtime, core, CLI, tests, examples), the N-API addon
# (cmake-js, against the local Node, offline), the webview bundle and the extension bundle.
# Usage: scripts/build.sh            (assumes scripts/install-deps.sh ran)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${STRATA_BUILD_DIR:-build}"
jobs="$(nproc)"

echo "strata: building native parts in $BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$jobs"

echo "strata: building the N-API addon"
bash native/addon/build.sh "$BUILD_DIR"

echo "strata: building webview and extension"
npm run --silent build -w webview
npm run --silent build -w extension
