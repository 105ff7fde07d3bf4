"""The gloo job (test/ranks/gloo_job.py, 4 CPU ranks under torchrun) recorded by `strata record`:
one profile per rank plus the launcher's, rank meta and one run id, the collectives under the
Python line that calls all_reduce with their bytes, element type and count, the planted slow
rank, `--ranks`, a rank killed by SIGKILL, a bad rank list, and (with --fixture) the committed
profile set read the same way.

  check_gloo.py STRATA RANKS_DUMP WORKDIR [--runtime LIB]  record and check (all cases; with
                                                          --runtime, also with the operator plugin
                                                          built on first use)
  check_gloo.py STRATA RANKS_DUMP WORKDIR --fixture DIR   check a recorded folder only
"""
import glob
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "gloo_job.py")
ELEMENTS = 16384
# Debian's torch 1.13 on Python 3.11 cannot parse torchrun's default --redirects/--tee ("0");
# stdout per rank into the log folder parses everywhere.
TORCHRUN = ["/usr/bin/python3",
            "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "4", "--redirects", "1", "--tee", "1"]

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def line_of(text):
    with open(JOB) as f:
        for i, line in enumerate(f, 1):
            if text in line:
                return i
    raise SystemExit(f"{text!r} not in {JOB}")


def dump(ranks_dump, folder):
    files = sorted(glob.glob(os.path.join(folder, "*.strata")))
    out = subprocess.run([ranks_dump] + files, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    return [json.loads(l) for l in out.stdout.splitlines()]


def record(strata, folder, job_args, strata_args=(), env=None):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    logs = os.path.join(folder, "logs")
    cmd = [strata, "record", "-o", os.path.join(folder, "run.strata"), "--checkpoint", "1", *strata_args, "--",
           *TORCHRUN, "--log_dir", logs, JOB, *job_args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    shutil.rmtree(logs, ignore_errors=True)
    return p


def by_rank(profiles):
    ranks = {}
    for p in profiles:
        r = p["meta"].get("rank")
        if r is not None:
            ranks.setdefault(int(r), []).append(p)
    return ranks


def check_identity(profiles, expect_ranks, label):
    launcher = [p for p in profiles if os.path.basename(p["path"]) == "run.strata"]
    check(len(launcher) == 1 and "rank" not in launcher[0]["meta"], f"{label}: the launcher's profile, without a rank")
    ranks = by_rank(profiles)
    check(sorted(ranks) == sorted(expect_ranks), f"{label}: ranks {sorted(ranks)} == {sorted(expect_ranks)}")
    run_ids = {p["meta"].get("run_id") for p in profiles}
    check(len(run_ids) == 1 and None not in run_ids and len(next(iter(run_ids))) == 16,
          f"{label}: one run_id in every profile ({run_ids})")
    hosts = {p["meta"].get("host") for p in profiles}
    check(len(hosts) == 1 and None not in hosts, f"{label}: host in every profile ({hosts})")
    launcher_pid = launcher[0]["meta"]["pid"] if launcher else None
    for r in expect_ranks:
        for p in ranks.get(r, []):
            m = p["meta"]
            if m.get("parent_pid") != launcher_pid:
                continue  # a DataLoader worker: checked below
            check(m.get("world_size") == "4" and m.get("local_rank") == str(r) and m.get("node_rank") == "0"
                  and m.get("rank_source") == "torch",
                  f"{label}: rank {r} world_size/local_rank/node_rank/rank_source "
                  f"({m.get('world_size')}, {m.get('local_rank')}, {m.get('node_rank')}, {m.get('rank_source')})")
            check(m.get("start_unix_ns", "").isdigit() and m.get("start_monotonic_ns", "").isdigit(),
                  f"{label}: rank {r} clock pair start_unix_ns/start_monotonic_ns")
    return ranks


def rank_process(ranks, r, launcher_pid):
    for p in ranks.get(r, []):
        if p["meta"].get("parent_pid") == launcher_pid:
            return p
    return None


def check_collectives(profiles, steps, label):
    launcher_pid = next(p["meta"]["pid"] for p in profiles if os.path.basename(p["path"]) == "run.strata")
    ranks = by_rank(profiles)
    line = line_of("dist.all_reduce(grad)")
    totals = {}
    for r, _ in sorted(ranks.items()):
        p = rank_process(ranks, r, launcher_pid)
        if not p:
            check(False, f"{label}: rank {r}'s own process profile")
            continue
        c = p["collectives"]
        check(c["present"], f"{label}: rank {r} has a collectives section")
        ar = [s for s in c["sites"] if s["op"] == "all_reduce"]
        check(len(ar) == 1, f"{label}: rank {r}: one all_reduce site ({len(ar)})")
        if not ar:
            continue
        s = ar[0]
        check(s["user_line"] == line and s["user_function"] == "step" and s["user_file"].endswith("gloo_job.py"),
              f"{label}: rank {r}: all_reduce under gloo_job.py:{line} step ({s['user_file']}:{s['user_line']} {s['user_function']})")
        check(s["python_function"] == "all_reduce" and s["python_file"].endswith("distributed_c10d.py"),
              f"{label}: rank {r}: innermost Python frame torch's all_reduce ({s['python_file']}:{s['python_line']})")
        check(s["frame"] == "c10d::allreduce_", f"{label}: rank {r}: at operator c10d::allreduce_ ({s['frame']})")
        check(s["backend"] == "gloo" and s["name"] == "all_reduce" and s["dtype"] == "Float",
              f"{label}: rank {r}: gloo all_reduce of Float ({s['backend']} {s['name']} {s['dtype']})")
        check(s["elements"] == ELEMENTS and s["bytes"] == ELEMENTS * 4,
              f"{label}: rank {r}: {ELEMENTS} elements, {ELEMENTS * 4} bytes ({s['elements']}, {s['bytes']})")
        check(s["count"] == steps and 0 < s["min_ns"] <= s["max_ns"] <= s["total_ns"],
              f"{label}: rank {r}: {steps} calls with times ({s['count']})")
        bc = [x for x in c["sites"] if x["op"] == "broadcast"]
        check(len(bc) == 1 and bc[0]["count"] == (steps + 9) // 10 and bc[0]["bytes"] == 32 and bc[0]["dtype"] == "Long",
              f"{label}: rank {r}: broadcast of 4 Long, {(steps + 9) // 10} calls")
        ba = [x for x in c["sites"] if x["op"] == "barrier"]
        check(len(ba) == 1 and ba[0]["count"] == 1, f"{label}: rank {r}: one barrier")
        seqs = [k["seq"] for k in c["calls"]]
        check(seqs == list(range(1, len(seqs) + 1)) and len(seqs) == steps + (steps + 9) // 10 + 1,
              f"{label}: rank {r}: calls numbered 1..{len(seqs)} in issue order")
        check(all(k["end_ns"] >= k["start_ns"] > 0 for k in c["calls"]), f"{label}: rank {r}: every call completed")
        totals[r] = s["total_ns"]
    # The planted straggler: rank 2 arrives last at every all_reduce, so it waits least there.
    if len(totals) == 4:
        others = [totals[r] for r in (0, 1, 3)]
        check(totals[2] < min(others),
              f"{label}: the slow rank 2 waits least in all_reduce ({totals[2] / 1e6:.0f} ms vs "
              f"{', '.join(f'{o / 1e6:.0f}' for o in others)} ms)")


def main():
    strata, ranks_dump, work = sys.argv[1:4]
    if "--fixture" in sys.argv:
        folder = sys.argv[sys.argv.index("--fixture") + 1]
        profiles = dump(ranks_dump, folder)
        check_identity(profiles, [0, 1, 2, 3], "fixture")
        check_collectives(profiles, 20, "fixture")
    else:
        steps = 20
        # 1. Every rank, with a DataLoader worker per rank.
        folder = os.path.join(work, "ranks_all")
        p = record(strata, folder, ["--steps", str(steps), "--dataloader"])
        check(p.returncode == 0, f"all ranks: strata record exited 0 ({p.returncode}; {p.stderr[-400:]})")
        profiles = dump(ranks_dump, folder)
        ranks = check_identity(profiles, [0, 1, 2, 3], "all ranks")
        check_collectives(profiles, steps, "all ranks")
        launcher_pid = next(q["meta"]["pid"] for q in profiles if os.path.basename(q["path"]) == "run.strata")
        for r in range(4):
            own = rank_process(ranks, r, launcher_pid)
            workers = [q for q in ranks.get(r, []) if own and q["meta"].get("parent_pid") == own["meta"]["pid"]]
            check(len(workers) == 1 and workers[0]["meta"].get("run_id") == own["meta"].get("run_id"),
                  f"all ranks: rank {r}'s DataLoader worker carries rank {r} and the run id ({len(workers)} found)")
        for q in profiles:
            if q["meta"].get("parent_pid") == launcher_pid:
                check(q["meta"].get("exit") == "exited with code 0",
                      f"all ranks: rank {q['meta'].get('rank')} meta exit from its parent ({q['meta'].get('exit')})")

        # 2. Only ranks 0, 2 and 3.
        folder = os.path.join(work, "ranks_listed")
        p = record(strata, folder, ["--steps", "5"], ["--ranks", "0,2-3"])
        check(p.returncode == 0, f"--ranks 0,2-3: strata record exited 0 ({p.returncode})")
        check_identity(dump(ranks_dump, folder), [0, 2, 3], "--ranks 0,2-3")

        # 3. Rank 1 killed by SIGKILL mid-run.
        folder = os.path.join(work, "ranks_killed")
        p = record(strata, folder, ["--steps", "100000", "--kill-rank", "1", "--kill-after-s", "2.5"])
        check(p.returncode != 0, f"killed rank: the job failed ({p.returncode})")
        profiles = dump(ranks_dump, folder)
        ranks = by_rank(profiles)
        check(sorted(ranks) == [0, 1, 2, 3], f"killed rank: every rank's profile is there ({sorted(ranks)})")
        killed = ranks.get(1, [{}])[0].get("meta", {})
        check(killed.get("ended") == "checkpoint" and killed.get("exit") == "killed by signal 9 (SIGKILL)"
              and killed.get("exit_signal") == "9",
              f"killed rank: rank 1 is its checkpoint and says SIGKILL ({killed.get('ended')}; {killed.get('exit')})")
        for r in (0, 2, 3):
            m = ranks.get(r, [{}])[0].get("meta", {})
            check(m.get("ended") not in (None, "checkpoint") and m.get("exit", "").startswith(("exited", "killed")),
                  f"killed rank: rank {r} wrote its final profile and says how it ended ({m.get('ended')}; {m.get('exit')})")

        # 4. A bad list: one line, nothing run, nothing written.
        folder = os.path.join(work, "ranks_bad")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        p = subprocess.run([strata, "record", "-o", os.path.join(folder, "run.strata"), "--ranks", "0,x-2", "--",
                            "/bin/true"], capture_output=True, text=True)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and "--ranks 0,x-2" in lines[0] and "'x-2'" in lines[0],
              f"bad list: one line, exit 2 ({p.returncode}: {p.stderr.strip()})")
        check(os.listdir(folder) == [], "bad list: nothing written")

        # 5. The operator plugin built on first use (the runtime alone in a folder, an empty cache), as
        #    where Strata meets this torch for the first time: the same collectives, and no callback
        #    of ours raising inside RecordFunction (torch logs and swallows those).
        if "--runtime" in sys.argv:
            runtime = os.path.join(work, "first_use", "rt", "libstrata_runtime.so")
            shutil.rmtree(os.path.join(work, "first_use"), ignore_errors=True)
            os.makedirs(os.path.dirname(runtime))
            shutil.copy(sys.argv[sys.argv.index("--runtime") + 1], runtime)
            env = dict(os.environ, STRATA_RUNTIME_LIB=runtime, STRATA_CACHE_DIR=os.path.join(work, "first_use", "cache"))
            env.pop("STRATA_TORCH_PLUGIN", None)
            folder = os.path.join(work, "first_use", "run")
            p = record(strata, folder, ["--steps", str(steps)], env=env)
            check(p.returncode == 0, f"first-use plugin: strata record exited 0 ({p.returncode}; {p.stderr[-400:]})")
            check("building the PyTorch operator plugin" in p.stderr, "first-use plugin: the plugin was built")
            raised = [l for l in p.stderr.splitlines() if "Exception in RecordFunction callback" in l]
            check(not raised, f"first-use plugin: no callback raised ({len(raised)}: {raised[:1]})")
            profiles = dump(ranks_dump, folder)
            check_identity(profiles, [0, 1, 2, 3], "first-use plugin")
            check_collectives(profiles, steps, "first-use plugin")
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
