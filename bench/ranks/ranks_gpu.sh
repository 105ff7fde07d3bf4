#!/usr/bin/env bash
# One device call: distributed jobs on GPUs under Strata, side by side with plain runs.
#   one GPU (nvidia-h100-x1): 2 ranks sharing the GPU (gloo: NCCL refuses two ranks on one
#     device), torchvision ResNet-50 under DDP;
#   several GPUs (nvidia-h200-x2 or larger, when NGPU >= 2): NCCL, HF GPT-2 (6 layers) under DDP
#     and under FSDP; rank 0 also once under torch.profiler, whose NCCL kernels are the reference
#     for the collective times Strata records.
# Each job: plain and under Strata, alternating, 2 rounds; then the run folder's report by rank,
# the analyzers' findings and the rank timeline as Chrome JSON, and each rank's profile size.
#   STRATA_RUNTIME=.device/rt-X/libstrata_runtime.so STRATA_CLI=.device/rt-X/strata \
#     bash bench/ranks/ranks_gpu.sh "$OUT"
# Carry .device/rt-X (runtime + CLI built from this tree) and .device/libunwind8_*.deb.
set -uo pipefail
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:?}" CLI="${STRATA_CLI:?}"
W=/tmp/ranks_gpu PY=python3 CS=/dev/null
NGPU=$(nvidia-smi -L | wc -l)
. bench/analyzers/case_study_runs.sh
case_study_setup  # libunwind unpacked, the host's description
export STRATA_RUNTIME_LIB="$RT"
nvidia-smi -L >> "$W/host.txt"

job() {  # name nproc script-args...
  local name="$1" n="$2"; shift 2
  local launch=(torchrun --standalone --nproc_per_node "$n" bench/ranks/ddp_gpu.py "$@")
  for round in 1 2; do
    timeout 240 "${launch[@]}" > "$W/$name.plain$round.log" 2>&1; echo "rc $?" >> "$W/$name.plain$round.log"
    rm -rf "$W/$name.run$round" && mkdir -p "$W/$name.run$round"
    timeout 300 "$CLI" record -o "$W/$name.run$round/run.strata" -- "${launch[@]}" \
      > "$W/$name.strata$round.log" 2>&1; echo "rc $?" >> "$W/$name.strata$round.log"
  done
  local run="$W/$name.run1"
  "$CLI" report --by-rank "$run" > "$W/$name.by_rank.txt" 2>&1
  "$CLI" analyze "$run" --format json > "$W/$name.findings.json" 2> "$W/$name.analyze.err"
  "$CLI" export "$run" --format chrome -o "$W/$name.timeline.json" > "$W/$name.export.log" 2>&1
  ls -l "$run" > "$W/$name.sizes.txt"
  grep -h "median step" "$W/$name".*.log
}

job resnet50_gloo_1gpu 2 --model resnet50 --wrap ddp --backend gloo --steps 10
if [ "$NGPU" -ge 2 ]; then
  job gpt2_ddp_nccl "$NGPU" --model gpt2 --wrap ddp --backend nccl --steps 12
  job gpt2_fsdp_nccl "$NGPU" --model gpt2 --wrap fsdp --backend nccl --steps 12
  timeout 240 torchrun --standalone --nproc_per_node "$NGPU" bench/ranks/ddp_gpu.py --model gpt2 --wrap ddp \
    --backend nccl --steps 12 --torch-profiler "$W/torch_profiler" > "$W/gpt2_ddp_torch_profiler.log" 2>&1
fi
gzip -f "$W"/*.timeline.json "$W"/torch_profiler/*.json 2>/dev/null
tar -C "$W" -czf "$OUT/ranks_gpu.tar.gz" .
