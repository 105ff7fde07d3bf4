#!/usr/bin/env python3
"""Per-kernel record cost, cross-validated on the recorded H100 GEMMs (no GPU needed).

Replay takes a cost per record out of every interval. One start-up constant (the calibration
kernel's 14.7 cycles) leaves 1-16% in full GEMM blocks, where the other warps' markers and the
per-k-step barrier stretch the recording warp. Here each kernel is calibrated on its own plain /
instrumented pair at one marker density (cost = (instrumented - plain) k-loop cycles / records in
the k-loop) and that cost replays the same kernel at the other density: the error is what a
per-kernel calibration would leave. Input: bench/regions/accuracy.py's table (run 5 has both
marker levels per kernel).

Second model, for the software-pipelined kernels (every warp runs the same k-step and all meet at
the k-step's barrier): the recording warp's own record costs the start-up constant (its
instructions, exposed as in the calibration kernel), and the rest of the markers' cost, the other
warps' marker code that the barrier makes everyone wait for and the schedule it moves, is a cost
per k-step, calibrated on the kernel's pair: (instrumented - plain - records x 14.7) / k-steps.
Replaying the other density then takes out records x 14.7 + k-steps x that. The warp-specialized
kernels keep the cost per record: their roles hand off through the ring every iteration, so each
record on either role lengthens the cycle. The form per kernel kind was chosen on these fixtures.
  python3 bench/regions/per_kernel_cost.py [test/fixtures/h100/regions/gemm_bench/accuracy_run5.md]
"""
import re
import sys


def rows(path):
    out = []
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 10 or not cells[1].isdigit():
            continue
        kernel, stages, kstep, level, lanes, records, truth, raw, _rep, cost = cells
        out.append({"kernel": kernel, "stages": int(stages), "kstep": int(kstep), "level": level, "lanes": lanes,
                    "records": int(records), "truth": float(truth.replace(",", "")),
                    "raw": float(raw.rstrip("%")) / 100, "cost": float(cost)})
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "test/fixtures/h100/regions/gemm_bench/accuracy_run5.md"
    table = rows(path)
    # The first recording of each (kernel, stages, k-step, lanes) that has both levels.
    pairs = {}
    for r in table:
        key = (r["kernel"], r["stages"], r["kstep"], r["lanes"])
        pairs.setdefault(key, {}).setdefault(r["level"], r)
    print(f"{path}: per-kernel record cost from one marker level, replaying the other")
    print("| kernel | stages | k-step | lanes | calibrated on | its cost (cycles/record) | replays | error, per-kernel cost | error, start-up 14.7 | its cost per k-step (+14.7/record) | error, k-step model | error, by kind |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    errs = {8: [], 32: []}
    kind_errs = {8: [], 32: []}
    for key, lv in pairs.items():
        if "level 1" not in lv or "level 2" not in lv:
            continue
        for a, b in (("level 1", "level 2"), ("level 2", "level 1")):
            ca, rb = lv[a]["cost"], lv[b]
            instrumented = rb["truth"] * (1 + rb["raw"])
            err = (instrumented - rb["records"] * ca) / rb["truth"] - 1
            base = (instrumented - rb["records"] * 14.7) / rb["truth"] - 1
            errs[key[2]].append(abs(err))
            # The k-step model: 14.7 per record plus a cost per k-step (K = 1024: 128 or 32 k-steps).
            steps = 1024 // key[2]
            ra = lv[a]
            per_step = (ra["truth"] * ra["raw"] - ra["records"] * 14.7) / steps
            step_err = (instrumented - rb["records"] * 14.7 - steps * per_step) / rb["truth"] - 1
            by_kind = step_err if key[0] == "pipelined" else err
            kind_errs[key[2]].append(abs(by_kind))
            print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {a} | {ca:.1f} | {b} | {100 * err:+.2f}% | {100 * base:+.2f}% "
                  f"| {per_step:.0f} | {100 * step_err:+.2f}% | {100 * by_kind:+.2f}% |")
    for name, table_errs in (("per-kernel cost per record", errs), ("by kind (pipelined: k-step model; warp-specialized: per record)", kind_errs)):
        for k, e in table_errs.items():
            if e:
                print(f"{name}, k-step {k}: mean |error| {100 * sum(e) / len(e):.2f}%, max {100 * max(e):.2f}% over {len(e)} cases "
                      f"({sum(1 for x in e if x <= 0.02)} within 2%)")


if __name__ == "__main__":
    main()
