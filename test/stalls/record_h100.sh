#!/usr/bin/env bash
# Records the PC-sampling fixtures on the GPU machine (H100, CUDA 13, Triton 3.6). Built on the
# dev machine and carried (carry: .device):
#   mkdir -p .device/stalls/lib .device/stalls/bin
#   cp build-rt/lib/libstrata_runtime.so .device/stalls/lib/
#   cp build-rt/bin/strata_rt_dump_profile .device/stalls/bin/
#   nvcc -arch=sm_90 -lineinfo -O3 -o .device/stalls/bin/stall_kernels test/stalls/stall_kernels.cu
#   nvcc -arch=sm_90 -lineinfo -O3 -o .device/stalls/bin/throughput_kernel test/stalls/throughput_kernel.cu
#   bash test/stalls/record_h100.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
B=.device/stalls
RT=$B/lib/libstrata_runtime.so
DUMP=$B/bin/strata_rt_dump_profile
W=$B/bin/stall_kernels
NVD=$(command -v nvdisasm || echo /usr/local/cuda/bin/nvdisasm)
PY=/opt/torch/.venv/bin/python3
[ -x "$PY" ] || PY=python3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "date: $(date -u +%FT%TZ); $($NVD --version | tail -1)"
meta() { "$DUMP" "$1" 0 2>&1 | grep -E "^(gpu|pc_sampling)"; }
t() { local s=$(date +%s%N); "$@" > /dev/null; local rc=$?; echo "$(( ($(date +%s%N) - s) / 1000000 )) ms (exit $rc)"; }
PARTS="${PARTS:-1 2 3 4 5 6}"  # which numbered parts below to run
on() { [[ " $PARTS " == *" $1 "* ]]; }
mkdir -p "$OUT/cubins"
# 1. Both kernels, continuous (the default mode) and serialized.
on 1 && for mode in continuous serialized; do
  timeout 120 env STRATA_OUTPUT="$OUT/stalls_$mode.strata" STRATA_PC_SAMPLING=$mode LD_PRELOAD="$RT" "$W" 10
  echo "stalls_$mode: exit $?"; meta "$OUT/stalls_$mode.strata"
  "$DUMP" "$OUT/stalls_$mode.strata" 40 2>&1 | grep -v "^ *$" | head -70
done
on 1 && python3 test/stalls/extract_cubins.py "$OUT/stalls_continuous.strata" "$OUT/cubins" --nvdisasm "$NVD"
# 2. A sampling period, and a bad one (the run goes on, the profile says why).
on 2 && {
timeout 120 env STRATA_OUTPUT=/tmp/p8.strata STRATA_PC_SAMPLING=continuous STRATA_PC_SAMPLING_PERIOD=8 LD_PRELOAD="$RT" "$W" 3 >/dev/null
echo "period 8: exit $?"; meta /tmp/p8.strata
timeout 120 env STRATA_OUTPUT=/tmp/pbad.strata STRATA_PC_SAMPLING=continuous STRATA_PC_SAMPLING_PERIOD=99 LD_PRELOAD="$RT" "$W" 1 >/dev/null
echo "period 99: exit $?"; meta /tmp/pbad.strata
}
# 3. Through CUDA_INJECTION64_PATH only.
on 3 && { timeout 120 env STRATA_OUTPUT=/tmp/inj.strata STRATA_PC_SAMPLING=continuous CUDA_INJECTION64_PATH="$RT" "$W" 2 >/dev/null
echo "inject: exit $?"; meta /tmp/inj.strata; }
# 4. Triton kernel (line info from Triton).
on 4 && {
timeout 200 env STRATA_OUTPUT="$OUT/triton_softmax.strata" STRATA_PC_SAMPLING=continuous LD_PRELOAD="$RT" $PY test/stalls/triton_kernel.py 30
echo "triton: exit $?"; meta "$OUT/triton_softmax.strata"
"$DUMP" "$OUT/triton_softmax.strata" 30 2>&1 | grep -v "^ *$" | grep -iE "softmax|pc|stall" | head -30
mkdir -p "$OUT/tcubins"
python3 test/stalls/extract_cubins.py "$OUT/triton_softmax.strata" "$OUT/tcubins" --nvdisasm "$NVD"
}
# 5. Cost: the workload alone, profiled without and with PC sampling (3 runs each).
on 5 && for i in 1 2 3; do
  echo "plain: $(t "$W" 10)"
  echo "profiled: $(t env STRATA_OUTPUT=/tmp/o.strata LD_PRELOAD="$RT" "$W" 10)"
  echo "pc continuous: $(t env STRATA_OUTPUT=/tmp/o.strata STRATA_PC_SAMPLING=continuous LD_PRELOAD="$RT" "$W" 10)"
  echo "pc serialized: $(t env STRATA_OUTPUT=/tmp/o.strata STRATA_PC_SAMPLING=serialized LD_PRELOAD="$RT" "$W" 10)"
done
# 6. The stall rule's twin: a math-throughput-bound kernel.
on 6 && {
timeout 120 env STRATA_OUTPUT="$OUT/throughput_continuous.strata" STRATA_PC_SAMPLING=continuous LD_PRELOAD="$RT" $B/bin/throughput_kernel 10
echo "throughput: exit $?"; meta "$OUT/throughput_continuous.strata"
python3 test/stalls/extract_cubins.py "$OUT/throughput_continuous.strata" "$OUT/cubins" --nvdisasm "$NVD"
}
# 7. Fixed vs per-kernel cost of PC sampling: 1 and 30 repetitions, plain and sampled.
on 7 && for i in 1 2; do
  for n in 1 30; do
    echo "reps $n plain: $(t "$W" $n)"
    echo "reps $n pc continuous: $(t env STRATA_OUTPUT=/tmp/o.strata STRATA_PC_SAMPLING=continuous LD_PRELOAD="$RT" "$W" $n)"
  done
done
# 8. Cost against the sampling period (2^N cycles): whole process and samples kept, 10 reps.
on 8 && for i in 1 2; do
  echo "plain: $(t "$W" 10)"
  for n in 10 12 14 16 18; do
    echo "period $n: $(t env STRATA_OUTPUT=/tmp/o$n.strata STRATA_PC_SAMPLING=continuous STRATA_PC_SAMPLING_PERIOD=$n LD_PRELOAD="$RT" "$W" 10) $("$DUMP" /tmp/o$n.strata 0 | grep -o '[0-9]* samples kept')"
  done
done
ls -l "$OUT" "$OUT/cubins" "$OUT/tcubins"
cd "$OUT" && tar czf cubins.tgz cubins tcubins && rm -rf cubins tcubins; ls -l "$OUT"
