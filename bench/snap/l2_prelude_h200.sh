#!/usr/bin/env bash
# One device call: does a replay time a kernel as the run did when the launch before it runs
# first (`strata replay --l2 prelude`)? For a cuDNN convolution of an eager resnet18 training
# step and a Triton kernel of a torch.compile'd one (bench/snap/torch_step.py), plus the CUDA C++
# axpy loop: snap, then replay in each L2 state, and compare with one instrument on both sides —
# Strata's CUPTI kernel records in the snapped run's profile and in a profile of the replay
# (`strata record -- strata replay`), both read by bench/snap/strata_kernel_times.py.
# FAMILIES (default "triton conv"), SKIP_AXPY=1, CUPTI_STATES (default "restored prelude").
# Carry .device/ (RT folder with libstrata_runtime.so and strata, stripped; libunwind8_*.deb).
#   RT=.device/rt-new bash bench/snap/l2_prelude_h200.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
W=/tmp/prelude
RT="${RT:-.device/rt-new}"
source bench/snap/device_setup.sh
BUDGET_S=${BUDGET_S:-560}
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "date: $(date -u +%FT%TZ)"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"

# Each L2 state: the replay's own event times (20 launches), then Strata's CUPTI times of a
# replay under strata record (the same instrument as the run's profile).
replay_states() {  # SNAP TOKEN BLOCKS
  local f=$1 token=$2 blocks=$3
  "$CLI" replay "$f" --info | grep -E "^(kernel|prelude|regions)" | cut -c1-220
  for l2 in restored prelude clean back-to-back; do
    step "replay --l2 $l2"
    timeout 120 "$CLI" replay "$f" --repeat 20 --l2 $l2 2>&1 | grep -E "outputs|time|prelude|warning|strata replay:"
  done
  for l2 in ${CUPTI_STATES:-restored prelude}; do
    step "CUPTI times of a replay --l2 $l2 under strata record"
    timeout 120 "$CLI" record -o "$W/replay-$l2.strata" -- "$CLI" replay "$f" --repeat 20 --l2 $l2 2>&1 | grep -E "outputs|strata:.*gpu"
    "$CLI" report --format json --view top-down "$W/replay-$l2.strata" 2>/dev/null | python3 bench/snap/strata_kernel_times.py "$token" "replay --l2 $l2" ${blocks:+"$blocks"}
  done
}

step "(a) CUDA C++ axpy loop"
if [ "${SKIP_AXPY:-0}" = 1 ]; then echo "skipped (SKIP_AXPY=1)"
elif nvcc -O3 -arch=sm_90 -o "$W/axpy_steps" bench/snap/axpy_steps.cu; then
  timeout 120 "$CLI" record -o "$W/axpy.strata" --snap axpy_step:3 --snap-preludes 12 -- "$W/axpy_steps" 2>&1 | grep -E "snapshot|strata:.*gpu"
  "$CLI" report --format json --view top-down "$W/axpy.strata" 2>/dev/null | python3 bench/snap/strata_kernel_times.py axpy_step "snapped run"
  [ -f "$W/axpy.snap" ] && replay_states "$W/axpy.snap" axpy_step ""
  timeout 60 "$CLI" record -o "$W/axpy-small.strata" --snap axpy_step:3 --snap-preludes 12 -- "$W/axpy_steps" 65536 2>&1 | grep snapshot
  cp "$W/axpy-small.snap" "$OUT/axpy_prelude.snap" 2>/dev/null
fi

for fam in ${FAMILIES:-triton conv}; do
  mode=eager; [ $fam = triton ] && mode=compiled
  if [ "$(left)" -lt 90 ]; then echo "SKIP $fam: out of time"; continue; fi
  step "(b) $mode resnet18: a first run, caches warm"
  timeout $(( $(left) - 30 )) python3 bench/snap/torch_step.py --mode $mode --steps 2 2>&1 | tail -1
  step "(b) $mode: discover a $fam kernel under torch.profiler"
  timeout $(( $(left) - 30 )) python3 bench/snap/torch_step.py --mode $mode --discover $fam --out "$W/$fam.json" > "$W/$fam-discover.log" 2>&1
  echo "exit $?"; tail -3 "$W/$fam-discover.log"
  [ -f "$W/$fam.json" ] || continue
  spec=$(python3 -c "import json;d=json.load(open('$W/$fam.json'));print(d['token']+':'+str(d['n']-d['n_outside_steps']))")
  token=$(python3 -c "import json;print(json.load(open('$W/$fam.json'))['token'])")
  blocks=$(python3 -c "import json,math;print(math.prod(json.load(open('$W/$fam.json'))['grid']))")
  step "(b) $mode: strata record --snap $spec"
  timeout $(( $(left) - 20 )) "$CLI" record -o "$W/$fam.strata" --snap "$spec" --snap-preludes 12 -- python3 bench/snap/torch_step.py --mode $mode > "$W/$fam-record.log" 2>&1
  echo "exit $?"; grep -E "snapshot|strata:.*gpu" "$W/$fam-record.log"
  [ -f "$W/$fam.snap" ] || continue
  "$CLI" report --format json --view top-down "$W/$fam.strata" 2>/dev/null | python3 bench/snap/strata_kernel_times.py "$token" "snapped run" "$blocks"
  python3 -c "import json;d=json.load(open('$W/$fam.json'));print('torch.profiler (no strata): this launch', d['in_run_us'], 'us; steady median', d['same_kernel_steady_median_us'], 'us over', len(d['same_kernel_steady_us']))"
  replay_states "$W/$fam.snap" "$token" "$blocks"
  size=$(stat -c %s "$W/$fam.snap"); echo "snapshot: $size bytes"
  [ "$size" -lt 12000000 ] && cp "$W/$fam.snap" "$OUT/${fam}_prelude.snap"
done
step "done"
} 2>&1 | tee "$OUT/l2_prelude.txt"
