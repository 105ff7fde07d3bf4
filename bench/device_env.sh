# Sourced by the device scripts: Debian's libunwind (carried as .device/libunwind8_*.deb; the GPU
# machine has none) unpacked beside the run, the operator plugin's cache, unbuffered Python.
if ls .device/libunwind8_*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
  export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export STRATA_CACHE_DIR=/tmp/strata-cache PYTHONUNBUFFERED=1
