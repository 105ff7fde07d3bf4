#!/usr/bin/env bash
# Records the rank-view fixtures (test/fixtures/rankview/): a real 4-rank gloo job run by
# torchrun under `strata record --wall`, once with rank 2 slowed down (STRATA_TEST_SLOW_RANK=2)
# and once balanced. Each rank's profile gets meta rank / local_rank / world_size / node_rank /
# host and one run_id per run, stamped after the run (from the pid -> rank map the job writes)
# for as long as the runtime does not write them itself.
# Usage: test/rankview/record_fixtures.sh [STRATA_BIN] [STAMP_BIN]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
strata="${1:-$root/build/bin/strata}"
stamp="${2:-$root/build/bin/strata_stamp_meta}"
out="$root/test/fixtures/rankview"
record() {  # name slow_rank
  local dir="$out/$1" map
  map="$(mktemp -d)"
  rm -rf "$dir" && mkdir -p "$dir"
  STRATA_TEST_SLOW_RANK="$2" STRATA_TEST_RANK_MAP="$map" STRATA_TEST_STEPS=30 \
    "$strata" record --wall -o "$dir/job.strata" -- /usr/bin/python3 -m torch.distributed.run \
    --nproc_per_node 4 --redirects 1 --tee 1 --log_dir "$map/logs" "$here/gloo_steps.py" >/dev/null
  local run_id host
  run_id="$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  host="$(hostname)"
  "$stamp" "$dir/job.strata" "run_id=$run_id" "host=$host"
  for f in "$map"/[0-9]*; do
    local pid rank local_rank world
    pid="$(basename "$f")"
    read -r rank local_rank world <"$f"
    "$stamp" "$dir/job.$pid.strata" "rank=$rank" "local_rank=$local_rank" "world_size=$world" \
      "node_rank=0" "host=$host" "run_id=$run_id"
  done
  rm -rf "$map"
}
record slow_rank2 2
record balanced -1
echo "fixtures written to $out"
