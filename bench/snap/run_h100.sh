#!/usr/bin/env bash
# One device call: snap and replay on the H100 (docs/snapshot-format.md, `strata record --snap`,
# `strata replay`). Everything goes to $OUT (logs, summaries, small snapshots as fixtures).
#   (a) bench/snap/axpy_steps.cu: snap its 3rd launch, replay (same addresses and --relocate),
#       compare, time in the run (the program's own events) against the replay; a small-size
#       snapshot for test/fixtures/snapshot; bad input (kernel never launched, file cut short).
#       The fixture committed in test/fixtures/snapshot is replayed too.
#   (b) bench/snap/torch_step.py, resnet18 batch 32 training: a cuDNN/cuBLAS kernel in the middle
#       of an eager step and a Triton kernel of a torch.compile'd step, each found under
#       torch.profiler first (in-run times: CUPTI's, of the unperturbed run), then snapped under
#       strata, replayed and compared. The program runs once before the discovery so that the
#       discovery run and the snapped run launch the same kernels (torch.compile's caches warm:
#       no autotuning launches in either) and the launch index N means the same launch in both.
# Set SKIP_BAD=1 to leave out the bad-input checks (already recorded), SKIP_AXPY=1 to leave out
# (a), FAMILIES="triton" (default "conv triton") to snap fewer PyTorch kernels.
# Carry .device/rt-snap (libstrata_runtime.so and strata, stripped builds of this branch; the
# libunwind8 .deb in .device if the host lacks libunwind).
#   bash bench/snap/run_h100.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
RT="${RT:-.device/rt-snap}"
CLI="$RT/strata"
export STRATA_RUNTIME_LIB="$(realpath "$RT/libstrata_runtime.so")"
if ls .device/libunwind8_*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
  export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export STRATA_CACHE_DIR=/tmp/strata-cache PYTHONUNBUFFERED=1
W=/tmp/snapwork; rm -rf "$W"; mkdir -p "$W" "$OUT/fixtures"
START=$SECONDS
left() { echo $(( ${BUDGET_S:-420} - (SECONDS - START) )); }
step() { echo; echo "=== $* ($(( SECONDS - START )) s in)"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "date: $(date -u +%FT%TZ)"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.version.cuda)"
ls -la "$RT"; "$CLI" --help | head -3; ldd "$CLI" | grep -i "not found"
df -h /tmp | tail -1

# The replayed kernel's duration as the hardware measures it (what CUPTI's kernel records, and so
# torch.profiler's in-run times, report), beside the replay's own event timing: ncu with the
# clocks and caches left alone, one metric, the snapped kernel only. --print-units base: the unit
# is fixed (auto scales it per value). The same under ncu for the run itself, so that run and
# replay are timed by one instrument.
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
ncu_csv() {  # TAG KERNEL-REGEX CMD...: ncu's CSV of the matching launches into $W/ncu-TAG.csv (and $OUT)
  local tag=$1 rx=$2; shift 2
  timeout $(( $(left) - 20 )) "$NCU" --clock-control none --cache-control none --print-units base \
    --metrics gpu__time_duration.sum -k "regex:$rx" --csv "$@" > "$W/ncu-$tag.csv" 2> "$W/ncu-$tag.err"
  echo "ncu exit $?"; tail -2 "$W/ncu-$tag.err"
}
ncu_time() {  # FILE KERNEL-REGEX [REPLAY-ARGS...]
  [ -n "$NCU" ] && [ "$(left)" -gt 60 ] || { echo "ncu: skipped"; return; }
  local f=$1 rx=$2; shift 2
  local tag="$(basename "$f" .snap)-replay${1:+-${2:-$1}}"
  ncu_csv "$tag" "$rx" "$CLI" replay "$f" --repeat 20 "$@"
  python3 bench/snap/ncu_times.py "$W/ncu-$tag.csv" "replay${*:+ $*}"
}

{
step "(a) CUDA C++: build"
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  $NVCC -O3 -arch=sm_90 -o "$W/axpy_steps" bench/snap/axpy_steps.cu || echo "nvcc failed"
elif [ -x "$RT/axpy_steps" ]; then cp "$RT/axpy_steps" "$W/"; fi
if [ "${SKIP_AXPY:-0}" = 1 ]; then echo "(a): skipped (SKIP_AXPY=1)"
elif [ -x "$W/axpy_steps" ]; then
  step "(a) plain run: the in-run times of each launch (no strata)"
  "$W/axpy_steps"
  step "(a) strata record --snap axpy_step:3"
  timeout 120 "$CLI" record -o "$W/axpy.strata" --snap axpy_step:3 -- "$W/axpy_steps"; echo "exit $?"
  ls -la "$W"/axpy*
  "$CLI" replay "$W/axpy.snap" --info
  step "(a) replay at the snapped addresses, 50 timed launches"
  timeout 120 "$CLI" replay "$W/axpy.snap" --repeat 50; echo "exit $?"
  if [ -f test/fixtures/snapshot/axpy.snap ]; then
    step "(a) replay of the committed fixture test/fixtures/snapshot/axpy.snap"
    timeout 60 "$CLI" replay test/fixtures/snapshot/axpy.snap --repeat 20; echo "exit $?"
  fi
  step "(a) the replayed kernel under ncu"
  ncu_time "$W/axpy.snap" axpy_step
  step "(a) the run itself under ncu: launch 3"
  [ -n "$NCU" ] && { ncu_csv axpy-run axpy_step "$W/axpy_steps"; python3 bench/snap/ncu_times.py "$W/ncu-axpy-run.csv" run 3; }
  step "(a) replay --relocate"
  timeout 120 "$CLI" replay "$W/axpy.snap" --repeat 50 --relocate; echo "exit $?"
  step "(a) small size for the fixture"
  timeout 60 "$CLI" record -o "$W/axpy-small.strata" --snap axpy_step:3 -- "$W/axpy_steps" 65536; echo "exit $?"
  timeout 60 "$CLI" replay "$W/axpy-small.snap" --repeat 5; echo "exit $?"
  cp "$W/axpy-small.snap" "$OUT/fixtures/axpy.snap" 2>/dev/null
  if [ "${SKIP_BAD:-0}" = 1 ]; then echo "(bad input: skipped)"; else
  step "(a) bad input: a kernel that never launches"
  timeout 60 "$CLI" record -o "$W/none.strata" --snap no_such_kernel -- "$W/axpy_steps" 65536; echo "exit $?"
  timeout 60 "$CLI" record -o "$W/none6.strata" --snap axpy_step:6 -- "$W/axpy_steps" 65536; echo "exit $?"
  step "(a) bad input: a snapshot cut short"
  head -c 3000 "$W/axpy-small.snap" > "$W/cut.snap"
  "$CLI" replay "$W/cut.snap"; echo "exit $?"
  fi
fi

for fam in ${FAMILIES:-conv triton}; do
  mode=eager; [ $fam = triton ] && mode=compiled
  if [ "$(left)" -lt 60 ]; then echo "SKIP $fam: out of time"; continue; fi
  step "(b) $mode resnet18: a first run, caches warm (no strata)"
  timeout $(( $(left) - 30 )) python3 bench/snap/torch_step.py --mode $mode --steps 2 2>&1 | tail -3
  step "(b) $mode resnet18: discover a $fam kernel under torch.profiler (no strata)"
  timeout $(( $(left) - 30 )) python3 bench/snap/torch_step.py --mode $mode --discover $fam --out "$W/$fam.json" > "$W/$fam-discover.log" 2>&1
  echo "exit $?"; grep -v '^   \|^  \[\|^  \],\?$' "$W/$fam-discover.log" | tail -40
  [ -f "$W/$fam.json" ] || continue
  spec=$(python3 -c "import json;d=json.load(open('$W/$fam.json'));print(d['token']+':'+str(d['n']))")
  step "(b) $mode: strata record --snap $spec"
  timeout $(( $(left) - 20 )) "$CLI" record -o "$W/$fam.strata" --snap "$spec" -- python3 bench/snap/torch_step.py --mode $mode > "$W/$fam-record.log" 2>&1
  echo "exit $?"; grep -v "^step" "$W/$fam-record.log" | tail -30
  if [ ! -f "$W/$fam.snap" ] && [ "$(left)" -gt 60 ]; then
    # The snapped run may still skip launches the discovery counted outside the steps.
    spec2=$(python3 -c "import json;d=json.load(open('$W/$fam.json'));print(d['token']+':'+str(d['n']-d['n_outside_steps'])) if d['n_outside_steps'] else None")
    if [ -n "$spec2" ] && [ "$spec2" != None ]; then
      step "(b) $mode: strata record --snap $spec2 (matching launches in the steps only)"
      timeout $(( $(left) - 20 )) "$CLI" record -o "$W/$fam.strata" --snap "$spec2" -- python3 bench/snap/torch_step.py --mode $mode > "$W/$fam-record.log" 2>&1
      echo "exit $?"; grep -v "^step" "$W/$fam-record.log" | tail -30
    fi
  fi
  [ -f "$W/$fam.snap" ] || continue
  ls -la "$W/$fam.snap"
  "$CLI" replay "$W/$fam.snap" --info | grep -v "^  param " | head -60
  step "(b) $mode: replay $fam, 20 timed launches"
  timeout 120 "$CLI" replay "$W/$fam.snap" --repeat 20; rc=$?; echo "exit $rc"
  token=$(python3 -c "import json;print(json.load(open('$W/$fam.json'))['token'])")
  # Why a short kernel replays slower than in the run: the L2 it finds. Clean (above, the default
  # since 2026-11-30): the restore copy's lines written back before the launch; as restored, they
  # are resident and dirty; back to back: what the previous launch of the kernel left (as in a loop).
  for l2 in restored back-to-back; do
    step "(b) $mode: replay $fam --l2 $l2, 20 timed launches"
    timeout 120 "$CLI" replay "$W/$fam.snap" --repeat 20 --l2 $l2 | grep -E "outputs|time"
  done
  step "(b) $mode: the replayed kernel under ncu (L2 clean, as restored, back to back)"
  ncu_time "$W/$fam.snap" "$token"
  ncu_time "$W/$fam.snap" "$token" --l2 restored
  ncu_time "$W/$fam.snap" "$token" --l2 back-to-back
  blocks=$(python3 -c "import json,math;print(math.prod(json.load(open('$W/$fam.json'))['grid']))")
  # Strata's own instruments on a replay: its CUPTI kernel records (the same instrument read from
  # the snapped run's profile: run and replay compared without the replay's events) and PC sampling.
  step "(b) $mode: Strata's CUPTI times of the kernel, in the snapped run and on a replay under strata record"
  "$CLI" report --format json --view top-down "$W/$fam.strata" 2>/dev/null | python3 bench/snap/strata_kernel_times.py "$token" "snapped run" "$blocks"
  timeout 120 "$CLI" record -o "$W/$fam-replay.strata" -- "$CLI" replay "$W/$fam.snap" --repeat 20 2>&1 | grep -E "outputs|time|floor|strata:"
  "$CLI" report --format json --view top-down "$W/$fam-replay.strata" 2>/dev/null | python3 bench/snap/strata_kernel_times.py "$token" "replay" "$blocks"
  if [ -n "$NCU" ] && [ "$(left)" -gt 100 ]; then
    step "(b) $mode: the run itself under ncu (no strata): the matching launches' durations"
    ncu_csv "$fam-run" "$token" python3 bench/snap/torch_step.py --mode $mode
    python3 bench/snap/ncu_times.py "$W/ncu-$fam-run.csv" "run" "$(python3 -c "import json;print(json.load(open('$W/$fam.json'))['n'])")" \
      "$(python3 -c "import json;print(','.join(map(str,json.load(open('$W/$fam.json'))['grid'])))")"
  else echo "ncu on the run: skipped (time)"; fi
  if [ "$(left)" -gt 80 ]; then
    step "(b) $mode: PC sampling (serialized) on a replay"
    timeout 120 "$CLI" record --pc-sampling serialized -o "$W/$fam-replay-pcs.strata" -- "$CLI" replay "$W/$fam.snap" --repeat 3 2>&1 | grep -E "outputs|strata:"
    # The heaviest instructions (rows with exclusive samples: the host frames above them hold
    # none) and every kernel's stalls: the replay process also runs its wait and empty kernels,
    # so the section must show which kernel the samples came from.
    "$CLI" report --view flat --limit 40 --metric pc_samples "$W/$fam-replay-pcs.strata" > "$W/$fam-replay-pcs.txt" 2>&1
    grep -E "gpu:|pc_sampling:" "$W/$fam-replay-pcs.txt"
    grep -E "^ +[0-9.]+% +[0-9.]+% " "$W/$fam-replay-pcs.txt" | grep -v "^ *0.00% " | head -12
    sed -n '/GPU stalls/,$p' "$W/$fam-replay-pcs.txt" | grep -E "^  [^ ]|stalls:" | head -12
  fi
  python3 -c "import json;d=json.load(open('$W/$fam.json'));print('in the run without strata (CUPTI): this launch', d['in_run_us'], 'us; same kernel, grid, block in steps 1+: median', d['same_kernel_steady_median_us'], 'us over', len(d['same_kernel_steady_us']))"
  if [ $rc = 3 ]; then
    step "(b) $mode: outputs differ bit-wise; with a tolerance"
    for dt in f32 bf16 f16; do timeout 120 "$CLI" replay "$W/$fam.snap" --repeat 0 --rtol 1e-3 --atol 1e-5 --dtype $dt | grep -E "outputs|differ"; done
  fi
  size=$(stat -c %s "$W/$fam.snap")
  if [ "$size" -lt 20000000 ]; then cp "$W/$fam.snap" "$OUT/fixtures/$fam.snap"; fi
  cp "$W/$fam.json" "$OUT/" 2>/dev/null
done
step "done"
# ncu's CSVs as one file ($OUT brings back at most 8 files).
(cd "$W" && ls ncu-*.csv ncu-*.err >/dev/null 2>&1 && tar czf "$OUT/ncu-csv.tar.gz" ncu-*.csv ncu-*.err)
ls -la "$W" "$OUT" "$OUT/fixtures"
} 2>&1 | tee "$OUT/snap_h100.txt"
