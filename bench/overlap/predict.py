#!/usr/bin/env python3
"""Prediction against measurement for the late-arrive pair (bench/overlap/run_h100.sh's OUTDIR).

Reads runs.jsonl (median kernel times, plain and with markers) and analyses late.bin and
fixed.bin with `strata regions --critical-path --format json`. The analysis of the late kernel
must flag the late release (an arrive-earlier finding on `rescale`); its predicted block time,
scaled to the plain kernel's time, is the prediction for the twin, compared with the twin's
measured plain time (goal: within 10%).
  python3 bench/overlap/predict.py OUTDIR [--strata build/bin/strata] [--record-cost 14.7]
"""
import argparse
import json
import os
import subprocess
import sys


def analyse(strata, out, variant, record_cost):
    cmd = [strata, "regions", os.path.join(out, variant + ".bin"), "--names-file", os.path.join(out, variant + ".json"),
           "--critical-path", "--format", "json", "--record-cost", str(record_cost)]
    side = json.load(open(os.path.join(out, variant + ".json")))
    if side.get("clock_cycles_per_ns"):
        cmd += ["--cycles-per-ns", str(side["clock_cycles_per_ns"])]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout), cmd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--strata", default="build/bin/strata")
    ap.add_argument("--record-cost", type=float, default=14.7)
    a = ap.parse_args()
    runs = {}
    for line in open(os.path.join(a.out, "runs.jsonl")):
        line = line.strip()
        if line.startswith("{"):
            r = json.loads(line)
            runs[(r["variant"], r["markers"])] = r
    late, cmd = analyse(a.strata, a.out, "late", a.record_cost)
    fixed, _ = analyse(a.strata, a.out, "fixed", a.record_cost)
    print("command:", " ".join(cmd))
    for name, an in (("late", late), ("fixed", fixed)):
        m = an["model"]
        print(f"{name}: model {m['kind']}, {m.get('stages')} stages, measured block {m['measured_kernel_ns'] / 1e3:.2f} us, "
              f"modelled {m.get('current', {}).get('kernel_ns', 0) / 1e3:.2f} us ({m.get('current', {}).get('bottleneck')}-bound); "
              f"findings: {[(f['kind'], f['name'], round(f['gain_share'], 3)) for f in an['findings']]}")
    flag = [f for f in late["findings"] if f["kind"] == "arrive-earlier"]
    ok_flag = bool(flag) and flag[0]["name"] == "rescale"
    print(f"late kernel flagged (arrive-earlier on `rescale`): {'yes' if ok_flag else 'NO'}")
    silent = not [f for f in fixed["findings"] if f["kind"] == "arrive-earlier"]
    print(f"fixed twin not flagged for a late arrive: {'yes' if silent else 'NO'}")
    if not flag:
        sys.exit(1)
    ratio = flag[0]["predicted_kernel_ns"] / late["model"]["measured_kernel_ns"]
    late_plain = runs[("late", 0)]["median_ms"]
    fixed_plain = runs[("fixed", 0)]["median_ms"]
    predicted = late_plain * ratio
    err = predicted / fixed_plain - 1
    print(f"kernel (plain, median of {runs[('late', 0)]['launches']}): late {late_plain * 1e3:.1f} us, fixed twin {fixed_plain * 1e3:.1f} us")
    print(f"predicted twin: {predicted * 1e3:.1f} us (late x {ratio:.3f}); error {100 * err:+.1f}% (goal: within 10%)")
    blk = fixed["model"]["measured_kernel_ns"]
    print(f"block level: predicted {flag[0]['predicted_kernel_ns'] / 1e3:.2f} us, twin measured (markers) {blk / 1e3:.2f} us, "
          f"error {100 * (flag[0]['predicted_kernel_ns'] / blk - 1):+.1f}%")
    sys.exit(0 if ok_flag and abs(err) <= 0.10 else 2)


if __name__ == "__main__":
    main()
