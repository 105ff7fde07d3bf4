#!/usr/bin/env bash
# One device call: the analyzer workloads that need only GPU collection, and a JAX step with
# XLA's HLO dump (to map fused kernels to source lines). Usage: bash test/analyzers/record_probe.sh "$OUT"
set -uo pipefail
FINAL="${1:?}"; OUT=/tmp/probe-out; mkdir -p "$OUT"
bash test/analyzers/record_h100.sh build/lib "$OUT"
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p /tmp/xla
env XLA_FLAGS="--xla_dump_to=/tmp/xla --xla_dump_hlo_as_text" STRATA_OUTPUT="$OUT/jax_step.strata" \
  LD_PRELOAD="$PWD/build/lib/libstrata_runtime.so" python3 test/gpu/jax_step.py 200 > "$OUT/jax_step.log" 2>&1
echo "jax: exit $?"; tail -3 "$OUT/jax_step.log"
ls /tmp/xla | head -30
f=$(ls /tmp/xla/*jit_step*after_optimizations.txt 2>/dev/null | head -1); echo "hlo: $f"
[ -n "$f" ] && cp "$f" "$OUT/jax_step.after_optimizations.txt"
tar czf "$OUT/xla_dump.tgz" -C /tmp xla 2>/dev/null; ls -la "$OUT"
tar czf "$FINAL/probe.tgz" -C "$OUT" .; ls -la "$FINAL"
