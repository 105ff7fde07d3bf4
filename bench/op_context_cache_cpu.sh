#!/usr/bin/env bash
# The operator context cache on this machine's CPU (Debian's torch): two runtimes side by side on
# torch's nn.TransformerEncoder training (bench/transformer_train_cpu.py), alternating, ROUNDS
# rounds, plus the plain program; prints each run's median step and the profile's contexts line.
# Each runtime's folder holds libstrata_runtime.so and libstrata_torch.so.
#   RT_A=/tmp/rt-new RT_B=/tmp/rt-old ROUNDS=3 bash bench/op_context_cache_cpu.sh
set -uo pipefail
CLI="${CLI:-build/bin/strata}"
W=$(mktemp -d)
for r in $(seq "${ROUNDS:-3}"); do
  echo "plain round $r: $(/usr/bin/python3 bench/transformer_train_cpu.py ${STEPS:-40} ${LAYERS:-6})"
  for rt in "${RT_A:?}" "${RT_B:?}"; do
    out=$(STRATA_OUTPUT="$W/p.strata" LD_PRELOAD="$rt/libstrata_runtime.so" /usr/bin/python3 bench/transformer_train_cpu.py ${STEPS:-40} ${LAYERS:-6})
    echo "$(basename "$rt") round $r: $out $("$CLI" report --limit 1 "$W/p.strata" | grep -o 'contexts [^;]*')"
  done
done
rm -rf "$W"
