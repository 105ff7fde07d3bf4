#!/usr/bin/env bash
# C++ suites built with ASan + UBSan (-DSTRATA_SANITIZE=ON) in a build dir of their own and run
# through ctest: format, region decoder, the runtime's unit tests (CCT, rings, line tables,
# Python frame walks and names, placement maps) and the core's suites (reader, views, symbolizer,
# reports, analyzers, regions, runs, exports, imports and diffs, the CLI's commands). The
# runtime's real-program tests preload libstrata_runtime.so into programs that are not built
# with ASan, so they run in the normal build only. Any report fails the test (halt_on_error,
# no UBSan recovery).
# To fit CI (2 cores): -O1 (what ASan recommends) with line tables only (-g1: sanitizer stack
# traces keep file:line; full DWARF of LLVM-heavy objects was most of the compile time) and
# the shared libLLVM (no static LLVM link per test binary). STRATA_SANITIZE_CORE=0 leaves the
# core's suites out.
# Usage: scripts/test_sanitized.sh   (scripts/test.sh runs it as the `sanitizers` suite)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${STRATA_SANITIZE_BUILD_DIR:-build-sanitize}"
jobs="$(nproc)"
start=$(date +%s)
flags="-O1 -g1 -DNDEBUG"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRATA_SANITIZE=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
  -DSTRATA_LLVM_STATIC=OFF -DSTRATA_BUILD_FUZZERS=OFF >/dev/null
targets=(strata_format_tests strata_region_decoder_tests strata_runtime_tests)
suites='format|region_decoder'
if [ "${STRATA_SANITIZE_CORE:-1}" = 1 ]; then
  targets+=(strata_core_tests strata_regions_tests strata_proton_import_tests strata_runs_tests strata_view_tests
            strata_interop_tests)
  suites="$suites|core"
fi
cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
built=$(date +%s)
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=${STRATA_SANITIZE_LEAKS:-1}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
unit='Cct|InductorProvenance|LineTable|MainStack|PyNames|PyOffsets|PyOffsetsTable|PyWalk|Ring|XlaHloMap'
rc=0
ctest --test-dir "$dir" --output-on-failure -j 1 \
  -R "^($suites)\.|^runtime\.($unit)\." -E '^core\.fuzz_' || rc=$?
echo "sanitizers: build $((built - start)) s, tests $(($(date +%s) - built)) s"
exit $rc
