# Sourced by the snap device scripts (async_copy_h100.sh, trace_h100.sh, bulk_copy_h100.sh) on the
# GPU machine: the carried runtime and CLI ($RT, default .device/rt-B), libunwind unpacked from the
# carried .deb, CUDA's tools on PATH, and a fresh work folder. Needs OUT and W; sets CLI, START and
# the helpers left (seconds of BUDGET_S left) and step (a heading with the time so far).
RT="${RT:-.device/rt-B}"
CLI="$(realpath "$RT/strata")"
export STRATA_RUNTIME_LIB="$(realpath "$RT/libstrata_runtime.so")"
. bench/device_env.sh
export PATH="$PATH:/usr/local/cuda/bin"
rm -rf "$W"; mkdir -p "$W/fx" "$OUT"
START=$SECONDS
left() { echo $(( ${BUDGET_S:-500} - (SECONDS - START) )); }
step() { echo; echo "=== $* ($(( SECONDS - START )) s in)"; }
