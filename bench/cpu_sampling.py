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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_record import print_and_record  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, env=None):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    strata = os.path.join(args.build, "bin", "strata")
    runtime = os.path.join(args.build, "lib", "libstrata_runtime.so")
    # Runs of about 3 s, so that the per-run fixed costs (measured apart below) stay small.
    workloads = {
        "C++ split (hot_path/cold_path)": [os.path.join(args.build, "bin", "split_workload"), "120"],
        "Python split (hot/cold)": ["/usr/bin/python3",
                                    os.path.join(ROOT, "test/attribution/workloads/split.py"), "150"],
        "Python + C++ example": ["/usr/bin/python3", os.path.join(ROOT, "examples/train_loop.py"), "400"],
    }
    env = dict(os.environ, STRATA_EXAMPLE_LIB=os.path.join(args.build, "lib", "libstrata_example.so"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "p.strata")
        sampled = dict(env, LD_PRELOAD=runtime, STRATA_OUTPUT=out)
        for name, cmd in workloads.items():
            base, pre, rec = [], [], []
            # Interleave plain and profiled runs so drift hits both alike.
            for _ in range(args.repeat):
                base.append(timed(cmd, env))
                pre.append(timed(cmd, sampled))
                rec.append(timed([strata, "record", "-o", out, "--", *cmd], env))
            b, p, r = (statistics.median(x) for x in (base, pre, rec))
            rows.append(f"| {name} | {b:.3f} | {p:.3f} | {p / b:.3f} | {r:.3f} | {r / b:.3f} |")
        # Fixed costs per run: the runtime's start and profile write, and the CLI around it.
        true = ["/bin/true"]
        fixed = [statistics.median(timed(c, e) for _ in range(21)) * 1000 for c, e in (
            (true, env), (true, sampled), ([strata, "record", "-o", out, "--", *true], env))]
        sizes = []
        for rounds in (10, 100, 1000):
            cmd = [os.path.join(args.build, "bin", "split_workload"), str(rounds)]
            subprocess.run([strata, "record", "-o", out, "--", *cmd], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            sizes.append(f"| {rounds} | {os.path.getsize(out)} |")
    text = "\n".join([
        f"### CPU sampling — {datetime.date.today()} — {platform.node()} ({os.cpu_count()} cores, "
        f"{platform.machine()}), default period (10 ms)",
        "",
        "Command: `python3 bench/cpu_sampling.py --repeat %d`. Median wall seconds of whole runs. "
        "*sampled*: the program with the runtime preloaded (`LD_PRELOAD`, `STRATA_OUTPUT`), which is "
        "what sampling costs the program; *strata record*: the same through the CLI, which adds the "
        "fixed per-run costs below. Goal: sampled / plain <= 1.03." % args.repeat,
        "",
        "| workload | plain s | sampled s | ratio | strata record s | ratio |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        f"Fixed cost per run (`/bin/true`, median of 21): plain {fixed[0]:.1f} ms, runtime preloaded "
        f"{fixed[1]:.1f} ms (start, empty profile written), `strata record` {fixed[2]:.1f} ms "
        "(adds the CLI's start, which loads libLLVM for `report`, and its check of the written profile).",
        "",
        "Profile size against run length (C++ split workload, rounds = run length; goal: flat)",
        "",
        "| rounds | profile bytes |",
        "| --- | --- |",
        *sizes,
        "",
    ])
    print_and_record(text, args.record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
