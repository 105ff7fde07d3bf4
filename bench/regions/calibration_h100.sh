#!/bin/bash
# Plain / instrumented pairs for calibrating the record cost per kernel, twice (fresh processes),
# so that a calibration chosen on run 1 is checked on run 2, and on problem shapes it was not
# chosen on. Built here (no GPU):
#   bash bench/regions/build.sh pairs                       # build-regions/bench/record_cost_pairs
#   cmake --build build -j2 --target strata strata_runtime
#   mkdir -p .device/rt-C && cp build/lib/libstrata_runtime.so build/bin/strata .device/rt-C/
# carry: build-regions/bench/record_cost_pairs, .device/rt-C, .device/libunwind8_*.deb; on the H100:
#   bash bench/regions/calibration_h100.sh "$OUT"
# Per run (run1, then run2; each: the GEMMs, then the Gluon attention):
# - GEMMs (bench/regions/record_cost_pairs.cu): pipelined and warp-specialized, 2 and 3 stages,
#   8- and 32-deep k-steps, marker levels 1 and 2, on 1024x1024x1024 (64 blocks, the shape of the
#   earlier runs; region buffers kept), 1024x1024x512 (half the k-steps) and 2048x2048x1024 (256
#   blocks, more than one a SM): kernel time plain / keep-all / circular (median of 60 launches
#   each, all kept), per-lane k-loop clock64 spans plain / instrumented (5 launches each).
# - The Gluon attention (test/proton/attention_ws_gluon.py), 1024 and 2048 tokens per head, one
#   process per density (plain: no scopes; loop: the partitions' loop scopes alone, the truth of
#   the loop spans; sparse; dense), each under Strata's runtime (CUPTI kernel time of every
#   launch): per shape one launch's Proton trace (global buffer: every record kept) and 60 timed
#   launches.
# Results: $OUT/calibration_h100.tar.gz (the runs, the traces, the logs) and $OUT/log.txt.
# Then here: python3 bench/regions/record_cost_heldout.py DIR/run1 DIR/run2 (docs/benchmarks.md).
# PARTS=paced: a third run of the Gluon attention alone, to check the paced model's form on data
# it was not chosen on: the same kernel at 1024, 2048 and 4096 tokens (run3/gluon), and a 3-deep
# K/V ring, another kernel (run3/gluon_ring3); python3 bench/regions/record_cost_heldout.py
# DIR/run1 DIR/run2 --paced-check DIR/run3 (run 1's traces fix the model).
# PARTS=repeat: the Gluon attention alone in two processes (runA, runB), each tracing TRACES
# (default 5) launches of every density at 1024, 2048 and 4096 tokens, the lengths taking turns:
# how far the loop-only truth moves launch to launch and process to process, and the paced model
# against the mean of a process's own loop-only launches (python3 bench/regions/gluon_repeat_check.py
# DIR/runA DIR/runB; ANALYSE=0: not there, the traces brought back instead; CLEAN_L2=1: a buffer
# twice the L2 read before each traced launch, test/proton/proton_common.py --clean-l2;
# DENSITIES: which of plain loop sparse dense run). RT: the runtime's folder (default .device/rt-C).
# PARTS=interleave: as repeat, but every density in ONE process (attention_ws_gluon.py --interleave:
# the loop-only truth and the instrumented kernels on the same tensors, their launches taking
# turns, each after a clean L2), so that what differs between processes (memory placement, the
# machine's state) reaches truth and instrumented launches alike. RUNS: the processes (default
# "runA runB"; one a call when their traces must come back: ~2.4 MB gzipped per launch of every
# density and length). Then python3 bench/regions/gluon_repeat_check.py DIR/runA DIR/runB
# --per-length --pooled (and RUN --halves).
set -uo pipefail
OUT="${1:?output folder}"
ROOT=$(pwd)
PY=/opt/torch/.venv/bin/python3
[ -x "$PY" ] || PY=python3
BIN=$ROOT/build-regions/bench/record_cost_pairs
RT=$ROOT/${RT:-.device/rt-C}
W=/tmp/calibration; rm -rf "$W"; mkdir -p "$W"
LOG="$OUT/log.txt"
T0=$(date +%s)
exec > >(tee "$LOG") 2>&1
elapsed() { echo $(( $(date +%s) - T0 )); }
late() { [ "$(elapsed)" -gt "$1" ]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$W/smi.txt"
echo "date: $(date -u +%FT%TZ)"
"$PY" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.version.cuda)"
mkdir -p /tmp/strata-unwind && dpkg -x "$ROOT"/.device/libunwind8_*.deb /tmp/strata-unwind
UNWIND=/tmp/strata-unwind/usr/lib/x86_64-linux-gnu
# The CLI, carried as is or compressed ($RT/strata.xz or $RT/strata.gz).
[ -x "$RT/strata" ] || { [ -f "$RT/strata.xz" ] && xz -dc "$RT/strata.xz" > /tmp/strata-cli && chmod +x /tmp/strata-cli; } ||
  { [ -f "$RT/strata.gz" ] && gunzip -c "$RT/strata.gz" > /tmp/strata-cli && chmod +x /tmp/strata-cli; }
CLI=$RT/strata; [ -x "$CLI" ] || CLI=/tmp/strata-cli

gemms() {  # RUN
  local shape tag
  for shape in "1024 1024 1024" "1024 1024 512" "2048 2048 1024"; do
    tag=g$(echo "$shape" | tr ' ' x)
    if late "$2"; then echo "== $1 $tag: skipped (time)"; continue; fi
    mkdir -p "$W/$1/$tag"
    local bins=--no-bins
    [ "$tag" = g1024x1024x1024 ] && bins=
    local s=$(date +%s)
    timeout 100 "$BIN" "$W/$1/$tag" $shape --reps 60 --loop-reps 5 $bins
    echo "== $1 $tag: exit $?, $(( $(date +%s) - s )) s (at $(elapsed) s)"
  done
}

# The Gluon attention, one process per density, under Strata's runtime; then the kernel's CUPTI
# times (strata export chrome) split by shape along the process's ORDER line.
gluon() {  # RUN DEADLINE [SUBDIR TOKENS RING]
  local d args tag sub=${3:-gluon} tokens=${4:-1024,2048} ring=${5:-2}
  mkdir -p "$W/$1/$sub"
  for d in ${DENSITIES:-plain loop sparse dense}; do
    if late "$2"; then echo "== $1 $sub $d: skipped (time)"; continue; fi
    if [ "$d" = plain ]; then args=(--no-scopes); else args=(--density "$d" --buffer-type global); fi
    tag=$W/$1/$sub/$d
    local s=$(date +%s)
    (cd "$ROOT/test/proton" && TRITON_CACHE_DIR=/tmp/tc_cal_$d PROTON_BENCH_DIR=/tmp timeout 120 env \
      LD_LIBRARY_PATH="$UNWIND${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" STRATA_OUTPUT="$tag.strata" \
      LD_PRELOAD="$RT/libstrata_runtime.so" "$PY" attention_ws_gluon.py "${args[@]}" --calibrate "$tag" \
      --n-ctx "$tokens" --ring "$ring" --reps 60 --traces "${TRACES:-1}" ${CLEAN_L2:+--clean-l2}) > "$tag.log" 2>&1
    local rc=$?
    echo "== $1 $sub $d: exit $rc, $(( $(date +%s) - s )) s (at $(elapsed) s)"
    grep -v "^\s*$" "$tag.log" | grep -v "^BENCH\|Warning (cta" | tail -4
    LD_LIBRARY_PATH="$UNWIND" "$CLI" export "$tag.strata" --format chrome -o "$tag.chrome.json" > "$tag.export.log" 2>&1 ||
      { echo "export failed:"; tail -3 "$tag.export.log"; }
    "$PY" - "$tag" <<'PY'
import json, sys
tag = sys.argv[1]
log = open(tag + ".log").read().splitlines()
order = next((json.loads(l[6:]) for l in log if l.startswith("ORDER ")), None)
bench = [json.loads(l[6:]) for l in log if l.startswith("BENCH ")]
out = {"order": order, "event_median_us": {b["shape"]: b["event_median_us"] for b in bench},
       "event_us": {b["shape"]: b["event_us"] for b in bench}}
try:
    ev = json.load(open(tag + ".chrome.json"))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    k = sorted((e for e in ev if e.get("ph") == "X" and "attn_fwd_ws_gluon" in e.get("name", "")), key=lambda e: e["ts"])
    out["cupti_launches"] = len(k)
    if order and len(k) == sum(n for _, _, n in order):
        i, per = 0, {}
        for what, shape, n in order:
            if what == "timed":
                per[shape] = [round(e["dur"], 3) for e in k[i:i + n]]
            i += n
        out["cupti_us"] = per
        out["cupti_median_us"] = {s: sorted(v)[len(v) // 2] for s, v in per.items()}
    else:
        out["cupti_all_us"] = [round(e["dur"], 3) for e in k]
except Exception as e:  # the traces and the event times still count
    out["cupti_error"] = f"{type(e).__name__}: {e}"
json.dump(out, open(tag + ".times.json", "w"))
print("   cupti median us:", out.get("cupti_median_us", out.get("cupti_error", "launches %s" % out.get("cupti_launches"))),
      "event median us:", out["event_median_us"])
PY
    rm -f "$tag".*strata "$tag.chrome.json"
  done
}

# Every density in one process (no runtime preloaded: the traces are Proton's, the times not
# needed; PRELOAD=1: under Strata's runtime all the same, to see what its CUPTI activity does).
gluon_interleaved() {  # RUN DEADLINE
  local tag=$W/$1/gluon s=$(date +%s) pre=()
  mkdir -p "$tag"
  if late "$2"; then echo "== $1 interleaved: skipped (time)"; return; fi
  [ "${PRELOAD:-0}" = 1 ] && pre=(LD_LIBRARY_PATH="$UNWIND" LD_PRELOAD="$RT/libstrata_runtime.so" STRATA_OUTPUT="$W/$1.strata")
  (cd "$ROOT/test/proton" && TRITON_CACHE_DIR=/tmp/tc_cal_interleaved PROTON_BENCH_DIR=/tmp timeout 560 env "${pre[@]}" \
    "$PY" attention_ws_gluon.py --interleave loop,sparse,dense --buffer-type global --calibrate "$tag" \
    --n-ctx 1024,2048,4096 --ring 2 --traces "$TRACES" ${CLEAN_L2:+--clean-l2}) > "$tag.log" 2>&1
  echo "== $1 interleaved: exit $?, $(( $(date +%s) - s )) s (at $(elapsed) s), $(ls "$tag" | wc -l) traces"
  grep -v "^\s*$" "$tag.log" | grep -v "Warning (cta" | tail -3
}

if [ "${PARTS:-heldout}" = interleave ]; then
  TRACES=${TRACES:-16}
  for r in ${RUNS:-runA runB}; do gluon_interleaved "$r" 540; done
elif [ "${PARTS:-heldout}" = repeat ]; then
  TRACES=${TRACES:-5}
  gluon runA 200 gluon 1024,2048,4096 2
  gluon runB 420 gluon 1024,2048,4096 2
elif [ "${PARTS:-heldout}" = paced ]; then
  gluon run3 240 gluon 1024,2048,4096 2
  gluon run3 480 gluon_ring3 1024,2048,4096 3
else
  gemms run1 120
  gluon run1 260
  gemms run2 330
  gluon run2 500
fi
echo "elapsed: $(elapsed) s"
if [ "${PARTS:-heldout}" = repeat ] || [ "${PARTS:-heldout}" = interleave ]; then
  # Many traces of three densities and lengths, twice, are too large to bring back: analysed here
  # (the CLI carried as is or compressed, above; at 12 launches one direction took over 100 s on
  # the H200); only the loop-only and the 1024-token traces come back.
  rate=$(awk -F', ' '{print $4}' "$W/smi.txt" | grep -o '[0-9]*' | head -1)
  mkdir -p "$W/analysis"
  if [ "${ANALYSE:-1}" = 1 ]; then
    # Calibrated per length on one process, replayed on the other, both ways (ANALYSE_S each).
    for pair in "runA runB" "runB runA"; do
      set -- $pair
      [ -d "$W/$1" ] && [ -d "$W/$2" ] || continue
      LD_LIBRARY_PATH="$UNWIND" STRATA="$CLI" timeout "${ANALYSE_S:-240}" python3 "$ROOT/bench/regions/gluon_repeat_check.py" "$W/$1" "$W/$2" \
        --per-length --pooled --cycles-per-ns "$(python3 -c "print(${rate:-1980} / 1000)")" > "$W/analysis/fit_$1_replay_$2.md"
      echo "analysis $1 -> $2: exit $? (at $(elapsed) s)"; tail -2 "$W/analysis/fit_$1_replay_$2.md"
    done
  fi
  cp "$LOG" "$W/log_copy.txt"
  tar -C "$W" --exclude='*.chrome_trace*' -czf "$OUT/calibration_repeat.tar.gz" .
  # The traces, for analysing again elsewhere: with ANALYSE=1 the loop-only and 1024-token ones,
  # one file a process; with ANALYSE=0 all of them, packed into files of at most 15 MiB, four of
  # them (a call brings back 64 MiB; 16 launches of every density and length are ~77 MB gzipped:
  # the rest stay in $W for the next call on the same machine, pack_traces.py --bins 4,5).
  (cd "$W" && ls run*/gluon/*.chrome_trace | xargs -r -P "$(nproc)" -n 8 gzip -q)
  if [ "${ANALYSE:-1}" = 1 ]; then
    for r in $(cd "$W" && ls -d run*); do
      (cd "$W" && tar -cf "$OUT/traces_$r.tar" $r/gluon/loop_*.chrome_trace.gz $r/gluon/*_n1024_*.chrome_trace.gz)
    done
  else
    (cd "$W" && python3 "$ROOT/bench/regions/pack_traces.py" "$OUT" run*/gluon/*.chrome_trace.gz)
  fi
  ls -la "$OUT"
  exit 0
fi
# The traces compress well (JSON); the region buffers of the 1024-cube GEMMs are the largest part.
(cd "$W" && gzip -q run*/gluon/*.chrome_trace 2>/dev/null; cp "$LOG" "$W/log_copy.txt"; du -sh run1 run2 2>/dev/null)
tar -C "$W" -czf "$OUT/calibration_h100.tar.gz" . && ls -la "$OUT"
