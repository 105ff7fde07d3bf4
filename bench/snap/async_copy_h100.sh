#!/usr/bin/env bash
# One device call: the late-wait cp.async pipeline and its twin (bench/snap/async_copy_pipeline.cu)
# on the H100, for the SASS dependency analysis (docs/async-copies.md):
#   1. build (nvcc -O3 -arch=sm_90a -lineinfo; the cubin; nvdisasm listings with line info);
#   2. time late vs twin plainly (no strata; median of 60 launches, 4096^3 and 2048^3);
#   3. snap each (strata record --snap, 2048^3) and replay it (--repeat 20);
#   4. PC sampling (serialized) of the run (both kernels) and of each replay;
#   5. cuda-gdb: version, Python, a 20-step plain session; `strata trace` of a small snapshot
#      (128x128x64: 4 k-steps) of each variant;
#   6. fixtures (< 2 MB) into $OUT/fixtures.tar.gz, everything else into $OUT/work.tar.gz.
# Carry .device/rt-B ({libstrata_runtime.so,strata}, built from branch h-sass) and the libunwind8
# .deb in .device.   bash bench/snap/async_copy_h100.sh "$OUT"   (about 6-8 minutes; BUDGET_S=500)
set -uo pipefail
OUT="${1:?output folder}"
W=/tmp/acpwork
. bench/snap/device_setup.sh
SRC=bench/snap/async_copy_pipeline.cu
{
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; echo "date: $(date -u +%FT%TZ)"
"$CLI" --help 2>&1 | head -1; ldd "$CLI" | grep -i "not found"
for t in nvcc nvdisasm cuobjdump cuda-gdb; do echo "$t: $(command -v $t || echo none)"; done
nvdisasm --version | tail -1

step "1. build"
nvcc -std=c++17 -O3 -arch=sm_90a -lineinfo -o "$W/acp" "$SRC" || echo "nvcc failed"
nvcc -std=c++17 -O3 -arch=sm_90a -lineinfo -cubin -o "$W/fx/async_copy_pipeline.cubin" "$SRC" || echo "nvcc -cubin failed"
nvdisasm -c -gi "$W/fx/async_copy_pipeline.cubin" > "$W/fx/async_copy_pipeline.sass" 2> "$W/nvdisasm.err"; echo "nvdisasm exit $?"
nvdisasm -c -gi -hex "$W/fx/async_copy_pipeline.cubin" > "$W/async_copy_pipeline_hex.sass" 2>> "$W/nvdisasm.err"
grep -nE "LDGSTS|LDGDEPBAR|DEPBAR|BAR.SYNC|BRA" "$W/fx/async_copy_pipeline.sass" | head -40
ls -la "$W/fx"

step "2. plain timing (no strata): median of 60 launches each"
"$W/acp" 4096 4096 4096 60
"$W/acp" 2048 2048 2048 100

for v in late twin; do
  step "3. $v: strata record --snap async_copy_$v (2048^3), replay --repeat 20"
  timeout 90 "$CLI" record -o "$W/$v-run.strata" --snap "async_copy_$v:1" --snap-output "$W/$v.snap" -- "$W/acp" 2048 2048 2048 0
  echo "exit $?"; ls -la "$W/$v.snap" 2>&1
  timeout 60 "$CLI" replay "$W/$v.snap" --repeat 20; echo "exit $?"
done

step "4. PC sampling (serialized): the run (both kernels, 2048^3, 5 launches each)"
timeout 90 "$CLI" record --pc-sampling serialized -o "$W/fx/acp_run_pcs.strata" -- "$W/acp" 2048 2048 2048 5; echo "exit $?"
"$CLI" report --view flat --limit 30 --metric pc_samples "$W/fx/acp_run_pcs.strata" > "$W/acp_run_pcs.txt" 2>&1
head -60 "$W/acp_run_pcs.txt"; sed -n '/GPU stalls/,$p' "$W/acp_run_pcs.txt" | head -30
for v in late twin; do
  [ "$(left)" -gt 330 ] || { echo "SKIP replay PC sampling $v: time"; continue; }
  step "4. PC sampling (serialized) of the $v replay"
  timeout 60 "$CLI" record --pc-sampling serialized -o "$W/$v-replay-pcs.strata" -- "$CLI" replay "$W/$v.snap" --repeat 5 2>&1 | grep -E "outputs|time|strata:"
  "$CLI" report --view flat --limit 20 --metric pc_samples "$W/$v-replay-pcs.strata" 2>&1 | head -40
done

step "5. cuda-gdb"
cuda-gdb --version | head -3
cuda-gdb -nx -batch -ex "python import sys; print('python', sys.version.split()[0])" -ex "python print(gdb.VERSION)" 2>&1 | tail -3
for v in late twin; do  # the small snapshots: 128x128 (one block), K=64 (4 k-steps)
  timeout 60 "$CLI" record -o "$W/$v-small.strata" --snap "async_copy_$v:1" --snap-output "$W/fx/$v-small.snap" -- "$W/acp" 128 128 64 0
  echo "small snap $v: exit $?"; ls -la "$W/fx/$v-small.snap"
done
cat > "$W/probe.gdb" <<'EOF'
set pagination off
set confirm off
set width 0
set breakpoint pending on
break async_copy_late
run
info cuda kernels
cuda kernel block thread
info symbol $pc
x/4i $pc
p $pc
p $R0
p $R1
p $P0
p $UR4
info registers R1
info registers P0
info cuda lanes
cuda block 0,0,0 thread 32,0,0
cuda kernel block thread
EOF
for i in $(seq 20); do printf 'x/i $pc\nstepi\n' >> "$W/probe.gdb"; done
printf 'p $P0\np $R2\ninfo cuda warps\nkill\nquit\n' >> "$W/probe.gdb"
step "5. a 20-step plain cuda-gdb session on the late replay"
T0=$SECONDS
timeout 90 cuda-gdb -nx -batch -x "$W/probe.gdb" --args "$CLI" replay "$W/fx/late-small.snap" --repeat 0 > "$W/probe.out" 2>&1
echo "exit $? in $(( SECONDS - T0 )) s"; head -c 12000 "$W/probe.out"
for v in late twin; do
  lim=$(( $(left) - 25 )); [ $v = late ] && lim=$(( lim * 6 / 10 ))
  [ "$lim" -gt 30 ] || { echo "SKIP trace $v: time"; continue; }
  step "5. strata trace $v (at most 6000 instructions, $lim s)"
  timeout "$lim" "$CLI" trace "$W/fx/$v-small.snap" --max-instructions 6000 --log "$W/$v.gdblog" -o "$W/fx/$v-small.trace.json" 2>&1 | tail -30
  echo "exit ${PIPESTATUS[0]}"
  if [ ! -s "$W/fx/$v-small.trace.json" ] && [ -s "$W/$v.gdblog" ]; then
    "$CLI" trace "$W/fx/$v-small.snap" --from-log "$W/$v.gdblog" -o "$W/fx/$v-small.trace.json" 2>&1 | tail -8
  fi
  head -c 3000 "$W/$v.gdblog"; echo; tail -c 1500 "$W/$v.gdblog"; echo; tail -c 3000 "$W/$v.gdblog.out" 2>/dev/null; echo
done

step "6. fixtures"
for v in late twin; do cp "$W/$v.gdblog" "$W/fx/" 2>/dev/null; done
ls -la "$W/fx"; du -sh "$W/fx"
# Over 2 MB together: the largest goes to work.tar.gz instead.
while [ "$(du -sb "$W/fx" | cut -f1)" -gt 2000000 ]; do
  big=$(ls -S "$W/fx" | head -1); echo "too big for fixtures: $big"; mv "$W/fx/$big" "$W/"
done
(cd "$W/fx" && tar czf "$OUT/fixtures.tar.gz" .)
(cd "$W" && tar czf "$OUT/work.tar.gz" --exclude='*.snap' --exclude=acp --exclude=fx . 2>/dev/null)
ls -la "$OUT"
step "done"
} 2>&1 | tee "$OUT/async_copy_h100.txt"
