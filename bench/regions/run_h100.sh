#!/bin/bash
# Runs the region-marker overhead benchmark on the lent H100 (issue 7, part 6). Build here (no
# GPU needed) with bench/regions/build.sh, carry build-regions/bench, then on the device:
#   bash bench/regions/run_h100.sh OUTDIR
# OUTDIR/rb gets overhead.json, accuracy.json, acc_*.bin, calibration.bin, sass.txt (the probes
# and the GEMMs), smi.txt and the log; then, here:
#   python3 bench/regions/accuracy.py OUTDIR/rb; python3 bench/regions/sass_record_cost.py OUTDIR/rb/sass.txt
set -o pipefail
B=${REGIONS_BENCH_BIN:-build-regions/bench}
O=$1/rb
mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$O/smi.txt"
timeout 400 "$B/region_overhead" "$O" ${ROUNDS:+--rounds $ROUNDS} 2>&1 | tee "$O/log.txt"
echo "region_overhead rc=$?"
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$CO" -sass "$B/region_overhead" > "$O/sass_all.txt" 2>&1
# Keep the probes and one GEMM of each kind (the whole dump is several MB).
python3 - "$O/sass_all.txt" "$O/sass.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
parts = re.split(r"(?=\n\s*Function : )", text)
keep = [p for p in parts if re.search(r"Function : \S*(RecordProbe|CalibrationKernel|PipelinedGemmILi2ELi1EN6strata7regions6ConfigILj256)", p)]
open(sys.argv[2], "w").write("".join(keep))
PY
rm -f "$O/sass_all.txt"
(cd "$1" && tar czf rb.tgz rb && rm -rf rb)
ls -la "$1"
