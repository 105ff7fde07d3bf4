#!/usr/bin/env python3
"""Benchmark (not a test): one program unprofiled and with the runtime preloaded at several
sampling periods (cpu mode), alternating within each round, the order rotated every round. The
program prints its own timing; PATTERN's first group is read as the number to compare (lower is
better). Per configuration: the median over rounds, its ratio to no profiler, and from the last
profile kept the meta lines that say where the time went (`sampler`: what one sample cost in the
handler; `gpu`: what one launch call path cost; `samples`). Configurations may add environment
(`--config NAME:VAR=VALUE,VAR=VALUE`), e.g. to switch the operator plugin off.

usage: bench/sampling_period.py --pattern REGEX [--runtime LIB] [--period-ms 10 --period-ms 100]
                                [--config NAME:VAR=VAL,...] [--rounds 3] [--out DIR] [--record]
                                -- COMMAND ...
example (CPU, torch): bench/sampling_period.py --pattern 'median_step_ms ([\\d.]+)' --rounds 3 \\
    -- /usr/bin/python3 bench/cpu_decode.py 100
example (H100): bench/sampling_period.py --runtime .device/rt/libstrata_runtime.so \\
    --pattern '\\(([\\d.]+) ms/token\\)' --rounds 3 -- python3 bench/real_models/gpt2_generate.py 64
"""
import argparse
import datetime
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_record import print_and_record  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def meta_lines(dump, profile, keys=("samples", "samples_dropped", "sampler", "gpu", "operators")):
    if not os.path.exists(dump) or not os.path.exists(profile):
        return {}
    text = subprocess.run([dump, profile, "0"], capture_output=True, text=True).stdout
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(" = ")
        if k in keys:
            out[k] = v
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runtime")
    ap.add_argument("--pattern", required=True)
    ap.add_argument("--period-ms", action="append", default=[])
    ap.add_argument("--config", action="append", default=[], help="NAME:VAR=VAL,VAR=VAL (runtime preloaded)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", help="keep the profiles here")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no command")
    runtime = os.path.abspath(args.runtime or os.path.join(args.build, "lib", "libstrata_runtime.so"))
    dump = os.path.join(args.build, "bin", "strata_rt_dump_profile")
    out_dir = args.out or tempfile.mkdtemp(prefix="strata_period_")
    os.makedirs(out_dir, exist_ok=True)
    configs = [("none", None)]
    for p in args.period_ms or ["10", "100"]:
        configs.append((f"{p} ms", {"STRATA_PERIOD_MS": p}))
    for c in args.config:
        name, _, kv = c.partition(":")
        configs.append((name, dict(x.split("=", 1) for x in kv.split(",") if x)))
    times = {name: [] for name, _ in configs}
    metas = {}
    for r in range(args.rounds):
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        for name, extra in order:
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            for k in [k for k in env if k.startswith("STRATA_") or k == "LD_PRELOAD"]:
                del env[k]
            profile = os.path.join(out_dir, re.sub("[^a-z0-9]+", "_", name.lower()).strip("_") + ".strata")
            if extra is not None:
                env.update(LD_PRELOAD=runtime, STRATA_OUTPUT=profile)
                env.update(extra)  # may name another runtime (LD_PRELOAD=...) to compare builds
            p = subprocess.run(cmd, env=env, capture_output=True, text=True)
            m = re.search(args.pattern, p.stdout)
            if p.returncode != 0 or not m:
                raise SystemExit(f"{name}: exit {p.returncode}, no match in: {p.stdout[-300:]} {p.stderr[-800:]}")
            times[name].append(float(m.group(1)))
            if extra is not None:
                metas[name] = meta_lines(dump, profile)
            print(f"round {r} {name}: {m.group(1)}", file=sys.stderr, flush=True)
    base = statistics.median(times["none"])
    rows = []
    for name, _ in configs:
        v = times[name]
        med = statistics.median(v)
        meta = metas.get(name, {})
        rows.append(f"| {name} | {med:.3f} | {med / base:.3f} | {', '.join(f'{x:.3f}' for x in v)} | "
                    f"{meta.get('samples', '–')} | {meta.get('sampler', '–')} |")
    load = os.getloadavg()
    text = "\n".join([
        f"### Sampling period — {datetime.date.today()} — {platform.node()} ({os.cpu_count()} cores, "
        f"load average {load[0]:.1f} at the end)",
        "",
        f"Command: `python3 bench/sampling_period.py --pattern {shlex.quote(args.pattern)} --rounds {args.rounds} "
        + " ".join(f"--period-ms {p}" for p in (args.period_ms or ["10", "100"]))
        + "".join(f" --config {shlex.quote(c)}" for c in args.config)
        + f" -- {' '.join(shlex.quote(c) for c in cmd)}`. Median over rounds of the number the program "
        "prints; ratio to no profiler; *sampler*: meta of the last profiled run (handler cost per sample).",
        "",
        "| configuration | median | ratio | runs | samples | sampler |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
    ])
    for name, meta in metas.items():
        if meta.get("gpu"):
            text += f"\n{name}, meta gpu: {meta['gpu']}\n"
    print_and_record(text, args.record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
