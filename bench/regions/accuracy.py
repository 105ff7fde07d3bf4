#!/usr/bin/env python3
"""Replay accuracy of in-kernel regions on real GEMMs (issue 7, part 6), from what
region_overhead wrote on the device:
  accuracy.py DIR [--strata build/bin/strata]
For each case in DIR/accuracy.json: `strata regions DIR/<case>.bin --calibration
DIR/calibration.bin --format json`, then per lane kind (pipelined: both warp groups; warp-
specialized: producer, consumers) the mean k-loop region duration, raw and replayed, against the
mean clock64 span of the same loop in the plain build (truth). Prints a table (markdown)."""
import argparse
import json
import os
import statistics
import subprocess
import sys

LOOP = {"pipelined": {0: 1, 1: 1}, "warpspec": {0: 10, 1: 13, 2: 13}}  # group -> k-loop region id
ROLE = {"pipelined": {0: "both warp groups", 1: "both warp groups"},
        "warpspec": {0: "producer", 1: "consumers", 2: "consumers"}}


def decode(strata, path, calibration, rate):
    cmd = [strata, "regions", path, "--format", "json", "--cycles-per-ns", repr(rate)]
    if calibration:
        cmd += ["--calibration", calibration]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--strata", default=os.environ.get("STRATA", "build/bin/strata"))
    a = ap.parse_args()
    meta = json.load(open(os.path.join(a.dir, "accuracy.json")))
    rate = meta["cycles_per_ns"]
    cal = os.path.join(a.dir, "calibration.bin")
    calib = decode(a.strata, cal, cal, rate)["record_cost_cycles"]
    print(f"device {meta['device']}, {meta['date']}, problem {meta['problem']}, calibrated {calib:.2f} cycles/record, "
          f"{rate:.4f} cycles/ns")
    print("| kernel | stages | k-step | markers | lanes | records in the k-loop per lane | truth (plain) cycles | raw error | "
          "replayed error | in-context cycles/record |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    for c in meta["cases"]:
        path = os.path.join(a.dir, c["name"] + ".bin")
        t = decode(a.strata, path, cal, rate)
        per = c["lanes_per_block"]
        plain, instr = c["plain_loop_cycles"], c["instrumented_loop_cycles"]
        lanes = t["lanes"]
        by_role = {}
        for i, ln in enumerate(lanes):
            role = ROLE[c["kind"]][ln["group"]]
            rid = LOOP[c["kind"]][ln["group"]]
            ivs = [v for v in t["intervals"] if v["lane"] == i and v["region"] == rid and v["depth"] == 0
                   and "iteration" not in v and not v.get("unmatched")]
            if len(ivs) != 1:
                raise SystemExit(f"{c['name']}: lane {i}: {len(ivs)} k-loop intervals")
            v = ivs[0]
            # records between the loop's start and end on this lane: what replay took out / cost
            d = by_role.setdefault(role, {"raw": [], "rep": [], "truth": [], "instr": [], "records": []})
            d["raw"].append((v["raw_end_ns"] - v["raw_start_ns"]) * rate)
            d["rep"].append((v["end_ns"] - v["start_ns"]) * rate)
            idx = ln["block"] * per + ln["group"]
            d["instr"].append(instr[idx])
            d["records"].append(round(((v["raw_end_ns"] - v["raw_start_ns"]) - (v["end_ns"] - v["start_ns"])) * rate / calib))
        for g in range(per):
            role = ROLE[c["kind"]][g]
            nblocks = len(plain) // per
            by_role[role]["truth"] += [plain[b * per + g] for b in range(nblocks)]
        for role, d in by_role.items():
            truth = statistics.mean(d["truth"])
            raw = statistics.mean(d["raw"])
            rep = statistics.mean(d["rep"])
            recs = statistics.mean(d["records"])
            row = {"case": c["name"], "bk": c.get("bk", 8), "role": role, "truth": truth, "raw_err": raw / truth - 1,
                   "replayed_err": rep / truth - 1, "records": recs, "in_context": (raw - truth) / recs,
                   "clock_span_err": statistics.mean(d["instr"]) / truth - 1}
            rows.append(row)
            print(f"| {c['kind']} | {c['stages']} | {c.get('bk', 8)} | level {c['level']} | {role} | {recs:.0f} | {truth:,.0f} | "
                  f"{row['raw_err'] * 100:+.2f}% | {row['replayed_err'] * 100:+.2f}% | {row['in_context']:.1f} |")
    for bk in sorted({r["bk"] for r in rows}):
        errs = [abs(r["replayed_err"]) for r in rows if r["bk"] == bk]
        print(f"k-step {bk}: mean |replayed error| {statistics.mean(errs) * 100:.2f}%, max {max(errs) * 100:.2f}% "
              f"over {len(errs)} lane kinds")
    json.dump({"calibrated_cycles_per_record": calib, "rows": rows}, open(os.path.join(a.dir, "accuracy_summary.json"), "w"),
              indent=1)


if __name__ == "__main__":
    sys.exit(main())
