#!/usr/bin/env bash
# The one test command (README, .ci/run): installs what is missing, builds, then runs every
# suite: GoogleTest and real-program tests through ctest (the fuzzer too), the C++ suites again
# under ASan + UBSan (scripts/test_sanitized.sh), TypeScript unit tests, webview tests in
# Chromium, end-to-end tests in a real VS Code (code-server).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || exit 1
bash scripts/build.sh || exit 1
bash scripts/install-code-server.sh .tools/code-server || exit 1

passed=0; failed=0; failed_names=()
suite() {
  local name="$1"; shift
  echo; echo "==== $name: $*"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names+=("$name"); fi
}
suite native      ctest --test-dir "${STRATA_BUILD_DIR:-build}" --output-on-failure -j 1
suite sanitizers  bash scripts/test_sanitized.sh
suite addon       node --test native/addon/test/
suite extension   npm test --silent -w extension
suite webview     npm test --silent -w webview
suite e2e         node --test test/e2e/
echo
[ $failed -eq 0 ] || echo "failed suites: ${failed_names[*]}"
echo "suites: $passed passed, $failed failed"
[ $failed -eq 0 ]
