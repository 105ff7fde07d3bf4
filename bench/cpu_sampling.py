#!/usr/bin/env python3
"""Benchmark (not a test): CPU sampling overhead at the default period, and profile size
against run length. Prints a Markdown table; --record appends it to docs/benchmarks.md.

usage: bench/cpu_sampling.py [--build build] [--repeat 7] [--record]
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, env=None):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    strata = os.path.join(args.build, "bin", "strata")
    workloads = {
        "C++ split (hot_path/cold_path)": [os.path.join(args.build, "bin", "split_workload")],
        "Python split (hot/cold)": ["/usr/bin/python3",
                                    os.path.join(ROOT, "test/attribution/workloads/split.py")],
        "Python + C++ example": ["/usr/bin/python3", os.path.join(ROOT, "examples/train_loop.py")],
    }
    env = dict(os.environ, STRATA_EXAMPLE_LIB=os.path.join(args.build, "lib", "libstrata_example.so"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "p.strata")
        for name, cmd in workloads.items():
            base, prof = [], []
            # Interleave plain and profiled runs so drift hits both alike.
            for _ in range(args.repeat):
                base.append(timed(cmd, env))
                prof.append(timed([strata, "record", "-o", out, "--", *cmd], env))
            b, p = statistics.median(base), statistics.median(prof)
            rows.append(f"| {name} | {b:.3f} | {p:.3f} | {p / b:.3f} |")
        sizes = []
        for rounds in (10, 100, 1000):
            cmd = [os.path.join(args.build, "bin", "split_workload"), str(rounds)]
            subprocess.run([strata, "record", "-o", out, "--", *cmd], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            sizes.append(f"| {rounds} | {os.path.getsize(out)} |")
    text = "\n".join([
        f"### CPU sampling — {datetime.date.today()} — {platform.node()} ({os.cpu_count()} cores), default period",
        "",
        "Command: `python3 bench/cpu_sampling.py --repeat %d` (median wall seconds, "
        "whole process including start-up; ratio = profiled / plain; goal <= 1.03)" % args.repeat,
        "",
        "| workload | plain s | profiled s | ratio |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
        "Profile size against run length (C++ split workload, rounds = run length; goal: flat)",
        "",
        "| rounds | profile bytes |",
        "| --- | --- |",
        *sizes,
        "",
    ])
    print(text)
    if args.record:
        with open(os.path.join(ROOT, "docs", "benchmarks.md"), "a") as f:
            f.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
