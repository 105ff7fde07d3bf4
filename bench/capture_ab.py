#!/usr/bin/env python3
"""What GPU collection costs, measured inside one process: HF GPT-2 decoding
(bench/real_models/gpt2_generate.py ... ab) alternates its generations between
torch.cuda.profiler.start() and stop(), under the runtime with STRATA_CAPTURE_RANGE=cudaProfilerApi
(collection on only between them) and without a profiler (the calls do nothing). Separate
processes on the lent GPU machine vary by up to x2 in speed (docs/benchmarks.md), which hides
a x1.25 goal; within one process the on / off ratio is steady. Per process: median ms/token of
the "on" and "off" generations and their ratio; for the unprofiled process the same ratio shows
what alternation itself does.
Runs on the GPU machine (LD_LIBRARY_PATH must reach libunwind):
  python3 bench/capture_ab.py --runtime .device/rt-C/libstrata_runtime.so --out DIR [--rounds 3]
      [--runtime-b OTHER.so] [--configs none,full,...]
With --runtime-b, two runtimes side by side (e.g. before and after a change), as "full-B" and
"full-B-key24" (STRATA_GPU_PATH_KEY_FRAMES=24); "full-key16-sp" / "full-key24-sp" key fewer native
frames and the stack depth (STRATA_GPU_PATH_KEY_SP=1). The runtime's own timers of each profile's
meta (call path and entry-trace cost per call) are printed beside the ratios."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CMD = [os.path.join(HERE, "real_models", "gpt2_generate.py"), "64", "1", "10", "ab"]
CONFIGS = [
    ("none", None),
    ("full", {"STRATA_CAPTURE_RANGE": "cudaProfilerApi"}),
    # CUPTI left attached between ranges, its activity kinds and callbacks switched off.
    ("full, attached", {"STRATA_CAPTURE_RANGE": "cudaProfilerApi", "STRATA_GPU_DETACH": "0"}),
    ("full-B", {"STRATA_CAPTURE_RANGE": "cudaProfilerApi"}),
    ("full-B-key24", {"STRATA_CAPTURE_RANGE": "cudaProfilerApi", "STRATA_GPU_PATH_KEY_FRAMES": "24"}),
    # A shorter native key with the stack depth and operator scopes keyed too.
    ("full-key16-sp", {"STRATA_CAPTURE_RANGE": "cudaProfilerApi", "STRATA_GPU_PATH_KEY_FRAMES": "16",
                       "STRATA_GPU_PATH_KEY_SP": "1"}),
    ("full-key24-sp", {"STRATA_CAPTURE_RANGE": "cudaProfilerApi", "STRATA_GPU_PATH_KEY_FRAMES": "24",
                       "STRATA_GPU_PATH_KEY_SP": "1"}),
]
B_CONFIGS = {"full-B", "full-B-key24"}


def part_costs(cli, profile):
    """The runtime's own per-call timers from the profile's meta (empty without a CLI)."""
    if not cli or not os.path.exists(profile):
        return ""
    meta = subprocess.run([cli, "report", profile, "--limit", "1"], capture_output=True, text=True).stdout
    parts = re.findall(r"call paths taken [\d.]+ us each|path cache: \d+ hits of \d+(?: \(verify: \d+ mismatches\))?|"
                       r"entry traces \d+, [\d.]+ us each", meta)
    return "; ".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cpus", help="pin every run to these CPUs (taskset list)")
    ap.add_argument("--runtime-b", help="a second runtime, run as the B configurations")
    ap.add_argument("--configs", help="comma-separated configuration names (default: all that apply)")
    ap.add_argument("--cli", help="strata CLI, to print each profile's own part timers")
    args = ap.parse_args()
    configs = [(n, e) for n, e in CONFIGS if args.runtime_b or n not in B_CONFIGS]
    if args.configs:
        want = args.configs.split(",")
        configs = [(n, e) for n, e in configs if n in want]
    os.makedirs(args.out, exist_ok=True)
    pin = ["taskset", "-c", args.cpus] if args.cpus else []
    results = {name: [] for name, _ in configs}
    for r in range(args.rounds):
        for name, extra in configs:
            env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONHASHSEED="0")
            if extra is not None:
                env.update(extra)
                env["LD_PRELOAD"] = os.path.abspath(args.runtime_b if name in B_CONFIGS else args.runtime)
                env["STRATA_OUTPUT"] = os.path.join(args.out, f"capture-{name.replace(', ', '-').replace(' ', '')}.strata")
            p = subprocess.run(pin + [sys.executable] + CMD, env=env, capture_output=True, text=True, timeout=300)
            m = re.search(r"capture on: ([\d.]+) ms/token, off: ([\d.]+) ms/token, before the first start: ([\d.]+)", p.stdout)
            if p.returncode != 0 or not m:
                raise SystemExit(f"{name} failed ({p.returncode}): {p.stdout[-300:]} {p.stderr[-1500:]}")
            on, off, pre = float(m.group(1)), float(m.group(2)), float(m.group(3))
            results[name].append({"on": on, "off": off, "before": pre, "ratio": round(on / off, 3),
                                  "off_over_before": round(off / pre, 3), "on_over_before": round(on / pre, 3)})
            parts = part_costs(args.cli, env.get("STRATA_OUTPUT", ""))
            print(f"round {r} {name}: on {on:.3f} off {off:.3f} before {pre:.3f} ms/token, on/off x{on / off:.3f}, "
                  f"off/before x{off / pre:.3f}, on/before x{on / pre:.3f}" + (f" [{parts}]" if parts else ""), flush=True)
    summary = {name: {"median_on_off_ratio": statistics.median(x["ratio"] for x in v),
                      "median_off_over_before": statistics.median(x["off_over_before"] for x in v),
                      "median_on_over_before": statistics.median(x["on_over_before"] for x in v), "runs": v}
               for name, v in results.items()}
    with open(os.path.join(args.out, "capture_ab.json"), "w") as f:
        json.dump(summary, f, indent=1)
    for name, v in summary.items():
        print(f"{name}: median on/off x{v['median_on_off_ratio']:.3f}, off/before x{v['median_off_over_before']:.3f}, "
              f"on/before x{v['median_on_over_before']:.3f}")


if __name__ == "__main__":
    main()
