#!/usr/bin/env bash
# Installs what Strata needs to build and test on Debian 12: Debian packages (only the missing
# ones, so a prepared machine pays nothing) and the npm workspace dependencies. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential cmake ninja-build pkg-config git
      libunwind-dev llvm-14-dev clang-14 libclang-rt-14-dev libfuzzer-14-dev
      nlohmann-json3-dev libcli11-dev libgtest-dev zlib1g-dev
      python3 python3-dev protobuf-compiler python3-protobuf
      python3-torch libtorch-dev
      chromium openssh-server
      libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "strata: installing Debian packages: ${missing[*]}"
  # From apt's cache first (machines without a network have the .debs there), else fetched.
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --no-download "${missing[@]}" >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

command -v node >/dev/null || { echo "strata: Node.js 20 is required (node not found)" >&2; exit 1; }
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "strata: installing npm dependencies"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund >/dev/null; else npm install --no-audit --no-fund >/dev/null; fi
fi
# speedscope's release build: ctest interop.speedscope_in_chromium loads Strata's exports in it
# (and bench/viewer compares the viewer with it). Without it that test skips, saying so.
if [ ! -f bench/viewer/.deps/node_modules/speedscope/dist/release/index.html ]; then
  npm install --no-save --no-audit --no-fund --prefix bench/viewer/.deps speedscope@1.25.0 >/dev/null ||
    echo "strata: speedscope could not be installed (interop.speedscope_in_chromium will skip)" >&2
fi
