#!/usr/bin/env python3
"""What every profiled process pays to start and end under the runtime, with nothing to sample:
a short program (/bin/true by default) run N times per configuration, configurations alternated
round by round, median per round. Shell scripts, build systems and multiprocessing start many
such processes (a shell's command substitutions: ~1,000 in runtime.Children.ShellCommandSubstitutionsFinish).

  python3 bench/process_start_cost.py --runtime new=build/lib/libstrata_runtime.so \
      [--runtime old=/path/to/other/libstrata_runtime.so] [--runs 40] [--rounds 5] [-- PROGRAM ARGS]

Configurations: plain; each runtime preloaded but inactive (no STRATA_OUTPUT: the loader's cost);
each runtime active (STRATA_OUTPUT set: init, sampler, aggregator, the profile written at exit).
Prints ms per process (median over rounds of the per-round mean)."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    argv = sys.argv[1:]
    program = ["/bin/true"]
    if "--" in argv:
        i = argv.index("--")
        program, argv = argv[i + 1:], argv[:i]
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", action="append", required=True, help="NAME=PATH")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args(argv)
    out_dir = tempfile.mkdtemp(prefix="strata-start-")
    configs = [("plain", {})]
    for spec in a.runtime:
        name, path = spec.split("=", 1)
        path = os.path.abspath(path)
        configs.append((f"{name} preloaded, inactive", {"LD_PRELOAD": path}))
        configs.append((f"{name} active", {"LD_PRELOAD": path, "STRATA_OUTPUT": os.path.join(out_dir, f"{name}.strata")}))
    per = {c: [] for c, _ in configs}
    for r in range(a.rounds):
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        for name, extra in order:
            env = dict(os.environ, **extra)
            t0 = time.perf_counter()
            for _ in range(a.runs):
                subprocess.run(program, env=env, check=True)
            per[name].append((time.perf_counter() - t0) / a.runs * 1e3)
    base = statistics.median(per["plain"])
    print(f"program: {' '.join(program)}; {a.runs} runs x {a.rounds} rounds, configurations alternated")
    for name, _ in configs:
        m = statistics.median(per[name])
        print(f"{name:32s} {m:7.2f} ms per process  (+{m - base:6.2f})  rounds: " + ", ".join(f"{x:.2f}" for x in per[name]))


if __name__ == "__main__":
    main()
