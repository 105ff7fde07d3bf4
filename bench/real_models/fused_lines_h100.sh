#!/usr/bin/env bash
# One device call: a torch.compile'd model and a JAX/flax step recorded again, so that their fused
# kernels carry their source lines as the frame's typed list (the profile's frame source lines
# section) instead of a "fuses a.py:12 fn, ..." name. Carry: .device (rt-<X>/libstrata_runtime.so
# built from this branch, libunwind8_*.deb).
#   STRATA_RUNTIME=.device/rt-<X>/libstrata_runtime.so bash bench/real_models/fused_lines_h100.sh "$OUT"
# Then, here: bash bench/real_models/fused_lines_check.sh "$OUT" (unpacks and counts).
set -uo pipefail
OUT="${1:?output folder}"
: "${STRATA_RUNTIME:?the runtime built from this branch}"
export STRATA_RUNTIME
MODELS="compiled_vit flax" timeout 300 bash bench/real_models/record_h100.sh "$OUT"
