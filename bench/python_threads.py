#!/usr/bin/env python3
"""Benchmark (not a test): many CPU-bound Python threads (they take turns on the GIL) plain and
with the runtime preloaded (cpu mode), at one or more sampling periods. Configurations alternate
within each round so drift hits all alike; a second plain configuration ("plain again") runs in
the same rotation, and its ratio to the first is the noise of the machine.

Per configuration: median wall seconds of the threaded part (timed inside the program: start,
join), median of the per-round ratios to plain (each round's runs are neighbours in time), the
whole process's CPU seconds (user + system), its context switches, and the samples the profile
holds. Prints a Markdown table; --record appends it to docs/benchmarks.md.

usage: bench/python_threads.py [--build build] [--runtime NAME=LIB ...] [--python PY ...]
                               [--threads 32,1] [--period-ms 10 ...] [--rounds 7] [--work 6000000]
                               [--record]
"""
import argparse
import datetime
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_record import print_and_record  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The same total work split over N threads; each thread computes in a pure-Python loop.
WORKLOAD = r'''
import sys, threading, time

nthreads, work = int(sys.argv[1]), int(sys.argv[2])
stamps = [[] for _ in range(nthreads)]
def spin(k, n):
    st, clock, s = stamps[k], time.perf_counter_ns, 0
    for i in range(n):
        s = (s + i) & 0xFFFF
        if i % 2000 == 0:
            st.append(clock())
    return s
threads = [threading.Thread(target=spin, args=(k, work // nthreads)) for k in range(nthreads)]
t0 = time.perf_counter()
for t in threads: t.start()
for t in threads: t.join()
print("threaded_s", time.perf_counter() - t0)
# GIL hand-offs: the stamps of all threads in time order; a change of thread is a switch.
ev = sorted((t, k) for k in range(nthreads) for t in stamps[k])
print("switches", sum(1 for a, b in zip(ev, ev[1:]) if a[1] != b[1]))
'''


def one_run(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = float(re.search(r"threaded_s ([\d.]+)", p.stdout).group(1))
    handoffs = int(re.search(r"switches (\d+)", p.stdout).group(1))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    switches = (after.ru_nvcsw - before.ru_nvcsw) + (after.ru_nivcsw - before.ru_nivcsw)
    return wall, cpu, switches, handoffs


def samples_of(dump, profile):
    if not os.path.exists(dump) or not os.path.exists(profile):
        return None
    text = subprocess.run([dump, profile], capture_output=True, text=True).stdout
    m = re.search(r"^samples = (\d+)", text, re.M)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runtime", action="append", default=[],
                    help="NAME=LIB, a library to preload (default: strata=BUILD/lib/libstrata_runtime.so)")
    ap.add_argument("--python", action="append", default=[])
    ap.add_argument("--threads", default="32,1")
    ap.add_argument("--period-ms", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--work", type=int, default=6000000, help="loop iterations, all threads together")
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    pythons = args.python or ["/usr/bin/python3"]
    periods = args.period_ms or ["10"]
    runtimes = [r.split("=", 1) for r in args.runtime] or [
        ("strata", os.path.join(args.build, "lib", "libstrata_runtime.so"))]
    dump = os.path.join(args.build, "bin", "strata_rt_dump_profile")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "threads.py")
        with open(script, "w") as f:
            f.write(WORKLOAD)
        configs = [("plain", None), ("plain again", None)] + [
            (f"{rt}, {p} ms", dict(os.environ, LD_PRELOAD=os.path.abspath(lib), STRATA_PERIOD_MS=p,
                                   STRATA_OUTPUT=os.path.join(tmp, f"{rt}-{p}.strata")))
            for rt, lib in runtimes for p in periods]
        for py in pythons:
            version = subprocess.run([py, "-c", "import platform; print(platform.python_version())"],
                                     capture_output=True, text=True).stdout.strip()
            for n in (int(x) for x in args.threads.split(",")):
                cmd = [py, script, str(n), str(args.work)]
                runs = {name: [] for name, _ in configs}
                samples = {}
                for r in range(args.rounds):
                    # Rotate the order each round: no configuration always runs first.
                    order = configs[r % len(configs):] + configs[:r % len(configs)]
                    for name, env in order:
                        runs[name].append(one_run(cmd, env or dict(os.environ)))
                        if env:
                            samples.setdefault(name, []).append(samples_of(dump, env["STRATA_OUTPUT"]))
                    print(f"python {version}, {n} threads, round {r}: " + ", ".join(
                        f"{k} {v[-1][0]:.3f}" for k, v in runs.items()), file=sys.stderr, flush=True)
                base = runs["plain"]
                for name, _ in configs:
                    v = runs[name]
                    wall = statistics.median(x[0] for x in v)
                    paired = statistics.median(x[0] / b[0] for x, b in zip(v, base))
                    cpu = statistics.median(x[1] for x in v)
                    cpu_paired = statistics.median(x[1] / b[1] for x, b in zip(v, base))
                    sw = statistics.median(x[2] for x in v)
                    gil = statistics.median(x[3] / x[0] for x in v)
                    s = [x for x in samples.get(name, []) if x is not None]
                    rows.append(f"| {version} | {n} | {name} | {wall:.3f} | {paired:.3f} | "
                                f"{min(x[0] / b[0] for x, b in zip(v, base)):.3f}–"
                                f"{max(x[0] / b[0] for x, b in zip(v, base)):.3f} | {cpu:.3f} | {cpu_paired:.3f} | {sw:.0f} | {gil:.0f} | "
                                f"{statistics.median(s) if s else '–'} |")
    load = os.getloadavg()
    text = "\n".join([
        f"### Many Python threads — {datetime.date.today()} — {platform.node()} ({os.cpu_count()} cores, "
        f"{platform.machine()}, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end)",
        "",
        f"Command: `python3 bench/python_threads.py --rounds {args.rounds} --work {args.work} --threads {args.threads} "
        + " ".join(f"--runtime {r}={l}" for r, l in runtimes) + " "
        + " ".join(f"--python {p}" for p in pythons) + " " + " ".join(f"--period-ms {p}" for p in periods)
        + "`. *wall*: median seconds of the threaded part (inside the program); *ratio*: median of the "
        "per-round ratios to *plain* (neighbouring runs), with their range; *plain again*: a second "
        "plain configuration in the same rotation, i.e. the noise. *cpu*: user + system seconds of "
        "the whole process, *cpu ratio* its median per-round ratio to plain; *context switches*: the process's (voluntary + involuntary); *GIL hand-offs / s*: "
        "changes of the running thread between neighbouring clock stamps the threads take every 2000 "
        "iterations (sampling signals that broke into the GIL protocol would add hand-offs). "
        "Goal: sampled / plain <= 1.03 at the default period.",
        "",
        "| python | threads | configuration | wall s | ratio | range | cpu s | cpu ratio | context switches | GIL hand-offs / s | samples |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
    ])
    print_and_record(text, args.record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
