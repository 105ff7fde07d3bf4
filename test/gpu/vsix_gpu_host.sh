#!/usr/bin/env bash
# The packaged extension on a GPU host that has only the NVIDIA driver, CUDA and the user's
# Python (no libLLVM, no libunwind): unpack the VSIX, record a real model with its CLI, then
# report and analyze with the same CLI. Nothing sets LD_PRELOAD or LD_LIBRARY_PATH by hand.
# Built here and carried (carry: .device/vsix):
#   node extension/package-vsix.mjs --out .device/vsix/strata.vsix
#   cp test/gpu/vsix_gpu_host.sh .device/vsix/
#   nm -D --undefined-only extension/out/vsix/dist/native/strata_addon.node \
#     | awk '$1=="U" && $2 ~ /^napi_/ {print "void " $2 "(void) {}"}' > /tmp/napi_stub.c
#   gcc -shared -fPIC -o .device/vsix/napi_stub.so /tmp/napi_stub.c
# Run on the device (device tool, repository root):
#   bash .device/vsix/vsix_gpu_host.sh "$OUT"
# Writes $OUT/vsix_gpu_host.log and $OUT/resnet50.strata.
set -uo pipefail
OUT="${1:?output folder}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VSIX="${VSIX:-$HERE/strata.vsix}"
MODELS="${MODELS_PY:-bench/real_models/models.py}"
SHARES="${SHARES_PY:-bench/real_models/attribution_shares.py}"
exec > >(tee "$OUT/vsix_gpu_host.log") 2>&1
export PYTHONUNBUFFERED=1

echo "date: $(date -u +%FT%TZ)"
echo "host: $(. /etc/os-release && echo "$PRETTY_NAME"), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "python: $(python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)')"
echo "LD_ variables the host's image sets (none by this script): $(env | grep '^LD_' | tr '\n' ' ')"
echo "libLLVM on the loader path: $(ldconfig -p | grep -o 'libLLVM[^ ]*' | sort -u | tr '\n' ' ')"
echo "libunwind on the loader path: $(ldconfig -p | grep -c 'libunwind\.so') entries"

# Unpack as VS Code does (a zip); unzip may be missing, and Python's zipfile drops the mode bits.
D=/tmp/strata-vsix
rm -rf "$D" && mkdir -p "$D"
if command -v unzip >/dev/null; then unzip -q "$VSIX" -d "$D"; else python3 -m zipfile -e "$VSIX" "$D"; fi
X="$D/extension/dist"
chmod +x "$X/bin/strata"
S="$X/bin/strata"
echo "vsix: $(stat -c %s "$VSIX") bytes"
ls -l "$X/bin/strata" "$X/native/strata_addon.node" "$X/lib/libstrata_runtime.so" "$X/lib/libunwind.so.8"
for f in "$X/bin/strata" "$X/native/strata_addon.node" "$X/lib/libstrata_runtime.so"; do
  echo "== ldd ${f#$D/}"
  ldd "$f"
done

# The addon loads with the host's libraries: in node where there is one; else through the loader
# alone, its N-API imports (which node provides) taken from empty stubs (napi_stub.so, built with
# the VSIX: the addon's undefined napi_* symbols as empty functions), its constructors run.
if command -v node >/dev/null; then
  echo "== node $(node --version): require(strata_addon.node)"
  node -e "const a = require('$X/native/strata_addon.node'); console.log('addon exports:', Object.keys(a).length)"
else
  echo "== node: not installed on this host; the addon loaded by the dynamic loader instead"
  python3 -c "import ctypes, os
ctypes.CDLL('$HERE/napi_stub.so', mode=os.RTLD_GLOBAL)
h = ctypes.CDLL('$X/native/strata_addon.node', mode=os.RTLD_NOW)
print('addon loaded (RTLD_NOW, constructors run); napi_register_module_v1 found:', bool(h.napi_register_module_v1))"
fi

# Which libunwind the runtime got: the packed one, found through the runtime's RUNPATH.
echo "== the runtime's libunwind in a recorded process"
maps="print(*sorted({l.split()[-1] for l in open('/proc/self/maps') if 'libunwind' in l or 'strata_runtime' in l}), sep='\n')"
"$S" record -o /tmp/maps.strata -- python3 -c "$maps"
echo "== the same with the image's LD_ variables removed too"
env -u LD_LIBRARY_PATH -u LD_PRELOAD "$S" record -o /tmp/maps2.strata -- python3 -c "$maps"

# An empty plugin cache: the runtime builds the operator plugin for this torch on first use.
export STRATA_CACHE_DIR=/tmp/strata-vsix-cache
rm -rf "$STRATA_CACHE_DIR"
echo "== strata record (resnet50, 3 steps)"
s=$(date +%s%N)
timeout 200 "$S" record -o /tmp/m.strata -- python3 "$MODELS" resnet50 3
echo "record exit $? in $(( ($(date +%s%N) - s) / 1000000 )) ms; profile $(stat -c %s /tmp/m.strata 2>/dev/null) bytes"
cp /tmp/m.strata "$OUT/resnet50.strata" 2>/dev/null

timed() {  # timed COMMAND: runs `strata COMMAND /tmp/m.strata` into /tmp/COMMAND.txt, says how it went
  echo "== strata $1"
  local s=$(date +%s%N)
  "$S" "$1" /tmp/m.strata > "/tmp/$1.txt"
  echo "$1 exit $? in $(( ($(date +%s%N) - s) / 1000000 )) ms, $(wc -l < "/tmp/$1.txt") lines"
}
timed report
head -n 50 /tmp/report.txt | cut -c1-220
echo "== strata report --view bottom-up --metric gpu_time (native frames symbolized on this host)"
"$S" report /tmp/m.strata --view bottom-up --metric gpu_time --limit 14 | sed -n '/bottom-up view/,$p' | cut -c1-220
timed analyze
head -n 12 /tmp/analyze.txt | cut -c1-400
echo "== attribution shares (through the packaged CLI)"
python3 "$SHARES" "$S" /tmp/m.strata
