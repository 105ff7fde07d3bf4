#!/usr/bin/env python3
"""Benchmark (not a test): what one sample of a Python-heavy program costs, per runtime library.
Each workload runs plain and with each given runtime preloaded (wall mode, 1 ms period, so about
1000 samples a second whatever the load); cost per sample = (CPU time profiled - plain) / samples
(user + system of the whole process: the handler, the aggregator's drain, the timer thread).
Workloads: a deep stack (200 Python frames in every sample, all code objects known: the cache's
hit path), 1,500 functions (few enough for the old fixed cache, so both name every frame), and
100,000 functions (most samples meet new names: the miss path; an old runtime stops naming after
2,048 code objects and so does less work there: more distinct frames and paths in the tree). Prints a Markdown table; --record appends it to docs/benchmarks.md.

usage: bench/python_handler_cost.py [--runtime NAME=LIB ...] [--python PY] [--repeat 5] [--record]
       (default runtime: build/lib/libstrata_runtime.so)
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DEEP = r'''
import sys
sys.setrecursionlimit(10000)
def down(n, work):
    if n == 0:
        s = 0
        for i in range(work):
            s += i
        return s
    return down(n - 1, work) + 1
for _ in range(int(sys.argv[1])):
    down(200, 30000)
'''


def cpu_run(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def samples_of(dump, profile):
    text = subprocess.run([dump, profile], check=True, capture_output=True, text=True).stdout
    return int(re.search(r"^samples = (\d+)", text, re.M).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runtime", action="append", default=[], help="NAME=path/to/libstrata_runtime.so")
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    runtimes = [r.split("=", 1) for r in args.runtime] or [["this build", os.path.join(args.build, "lib", "libstrata_runtime.so")]]
    dump = os.path.join(args.build, "bin", "strata_rt_dump_profile")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        deep = os.path.join(tmp, "deep.py")
        with open(deep, "w") as f:
            f.write(DEEP)
        many = os.path.join(ROOT, "profiler_runtime/tests/targets/many_functions.py")
        workloads = {
            "deep stack (200 frames, known code)": [args.python, deep, "1000"],
            "1,500 functions (fit the old 2,048-entry cache)": [args.python, many, "15", "100", "2000000"],
            "100,000 functions (new code)": [args.python, many],
        }
        out = os.path.join(tmp, "p.strata")
        for wname, cmd in workloads.items():
            plain = [cpu_run(cmd, dict(os.environ)) for _ in range(args.repeat)]
            base = statistics.median(plain)
            for rname, lib in runtimes:
                env = dict(os.environ, LD_PRELOAD=lib, STRATA_OUTPUT=out, STRATA_MODE="wall", STRATA_PERIOD_MS="1")
                costs, cpus, counts = [], [], []
                for _ in range(args.repeat):
                    cpu = cpu_run(cmd, env)
                    n = samples_of(dump, out)
                    cpus.append(cpu)
                    counts.append(n)
                    costs.append((cpu - base) / max(n, 1) * 1e6)
                rows.append(f"| {wname} | {rname} | {base:.2f} | {statistics.median(cpus):.2f} | "
                            f"{statistics.median(counts)} | {statistics.median(costs):.1f} |")
    head = ("| workload | runtime | CPU s plain | CPU s profiled | samples | µs CPU per sample |\n"
            "|---|---|---|---|---|---|")
    table = head + "\n" + "\n".join(rows)
    print(table)
    if args.record:
        py = subprocess.run([args.python, "-c", "import platform; print(platform.python_version())"],
                            capture_output=True, text=True).stdout.strip()
        cmdline = "bench/python_handler_cost.py " + " ".join(sys.argv[1:])
        with open(os.path.join(ROOT, "docs", "benchmarks.md"), "a") as f:
            f.write(f"\n## Python sample cost ({datetime.date.today()}, {platform.node()}, Python {py})\n\n"
                    f"`{cmdline}`\n\n{table}\n")


if __name__ == "__main__":
    main()
