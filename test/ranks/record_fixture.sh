#!/usr/bin/env bash
# Records the gloo job (test/ranks/gloo_job.py: 4 CPU ranks under torchrun, rank 2 slow before
# each all_reduce) into test/fixtures/ranks/: gloo4/ (a run that ends normally) and
# gloo4_killed/ (rank 1 sends itself SIGKILL 25 s into its steps, after a checkpoint past its first collectives; torchrun then ends the others).
# Usage: test/ranks/record_fixture.sh [STRATA_CLI [killed]]   (default build/bin/strata; killed: only gloo4_killed)
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
strata="$(realpath "${1:-$root/build/bin/strata}")"
job="$root/test/ranks/gloo_job.py"
# Debian's torch 1.13 on Python 3.11: torchrun's default --redirects/--tee ("0") do not parse
# (Std.from_str returns None); redirecting stdout per rank into the log folder does.
torchrun=(/usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 4 --redirects 1 --tee 1)
record() {  # folder, extra job arguments...
  local dir="$root/test/fixtures/ranks/$1"; shift
  rm -rf "$dir" && mkdir -p "$dir"
  local logs; logs="$(mktemp -d)"
  (cd "$dir" && "$strata" record -o run.strata --checkpoint 1 -- "${torchrun[@]}" --log_dir "$logs" "$job" "$@") || true
  rm -rf "$logs"
}
[ "${2:-}" = killed ] || record gloo4 --steps 20
record gloo4_killed --steps 100000 --kill-rank 1 --kill-after-s 25
du -sh test/fixtures/ranks/*
