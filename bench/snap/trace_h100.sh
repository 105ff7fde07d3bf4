#!/usr/bin/env bash
# One device call, the second for `strata trace` (docs/async-copies.md): the operand table from
# nvdisasm (registers and memory read first, by the listing's operands), other warps and blocks,
# bad input. Small snapshots of bench/snap/async_copy_pipeline.cu:
#   late 128x128x64 (one block), twin 256x128x64 (two blocks);
#   late: warp 0 to EXIT (5,000 instructions at most), warp 5 of block (0,0,0) (300);
#   twin: block (0,1,0) warp 2 (1,500); bad input: a warp and a block out of range.
# Carry .device/rt-B (strata and libstrata_runtime.so built from branch h-sass) and the
# libunwind8 .deb in .device.   bash bench/snap/trace_h100.sh "$OUT"   (about 6 minutes)
set -uo pipefail
OUT="${1:?output folder}"
W=/tmp/trwork
. bench/snap/device_setup.sh
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "date: $(date -u +%FT%TZ)"
"$CLI" trace --help | head -3
step "build and snap"
nvcc -std=c++17 -O3 -arch=sm_90a -lineinfo -o "$W/acp" bench/snap/async_copy_pipeline.cu || echo "nvcc failed"
timeout 60 "$CLI" record -o "$W/l.strata" --snap async_copy_late:1 --snap-output "$W/late.snap" -- "$W/acp" 128 128 64 0 | tail -2
timeout 60 "$CLI" record -o "$W/t.strata" --snap async_copy_twin:1 --snap-output "$W/twin.snap" -- "$W/acp" 256 128 64 0 | tail -2
ls -la "$W"/*.snap
# trace NAME SNAP LIMIT MAX ARGS...: strata trace within LIMIT seconds (the log kept: a run cut short is parsed after).
trace() {
  local name=$1 snap=$2 lim=$3 max=$4; shift 4
  [ "$(left)" -gt $(( lim / 2 )) ] || { echo "SKIP $name: time"; return; }
  [ "$lim" -lt "$(left)" ] || lim=$(( $(left) - 10 ))
  step "strata trace $name (at most $max instructions, $lim s): $*"
  timeout "$lim" "$CLI" trace "$snap" --max-instructions "$max" --log "$W/$name.gdblog" -o "$W/fx/$name.trace.json" "$@" 2>&1 | tail -12
  echo "exit ${PIPESTATUS[0]}"
  if [ ! -s "$W/fx/$name.trace.json" ] && [ -s "$W/$name.gdblog" ]; then
    "$CLI" trace --from-log "$W/$name.gdblog" -o "$W/fx/$name.trace.json" 2>&1 | tail -4
  fi
  grep -c '"reads"' "$W/$name.gdblog"; grep -m5 '"reads"' "$W/$name.gdblog" | cut -c1-300
  grep -c '"mem"' "$W/$name.gdblog"; grep -m3 '"mem"' "$W/$name.gdblog" | cut -c1-300
  grep -m3 '"guard": false' "$W/$name.gdblog" | cut -c1-200
  grep '"kind": "note"\|"kind": "focus"\|"kind": "end"' "$W/$name.gdblog" | cut -c1-400
  tail -c 1500 "$W/$name.gdblog.out" 2>/dev/null; echo
}
trace late-w0 "$W/late.snap" 230 5000
trace late-w5 "$W/late.snap" 60 300 --warp 5
trace twin-b1w2 "$W/twin.snap" 100 1500 --block 0,1,0 --warp 2
step "bad input"
"$CLI" trace "$W/late.snap" --warp 8; echo "exit $?"
"$CLI" trace "$W/late.snap" --block 1,0,0; echo "exit $?"
"$CLI" trace "$W/late.snap" --cuda-gdb /nonexistent; echo "exit $?"
step "done"
ls -la "$W/fx"; du -sh "$W/fx"
(cd "$W/fx" && tar czf "$OUT/traces.tar.gz" .)
(cd "$W" && tar czf "$OUT/logs.tar.gz" *.gdblog *.gdblog.out 2>/dev/null)
} 2>&1 | tee "$OUT/trace_h100.txt"
