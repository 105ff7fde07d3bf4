#!/usr/bin/env python3
"""Sampled GPU tracing scales by the share of operator calls made in its windows, not by their
share of time, in a real torch program: sampled_scale_program.py runs under `strata record
--gpu-sampling 40/200` on the stand-in CUPTI, three times slower inside windows. The windows hold
20% of the time but only ~8% of the steps; scaled by the time share (x5) the GPU total would read
~0.4 of the launches' true total, scaled by operator calls it must read ~1. Then the same program,
not slowed in windows, spends 300 us on other work after each step outside them: the windows hold
more of the calls than of the time, which tracing cannot cause, and the time share must be kept,
saying why. A run of fewer than 10 windows has `strata record` say that its line shares can be
several points off.

usage: check_sampled_scale.py STRATA FAKE_CUPTI WORKDIR
"""
import json
import os
import re
import subprocess
import sys


def record(strata, fake, work, name, *args):
    """Runs the program; returns (launched, steps in windows, the gpu_time report, its meta)."""
    out = os.path.join(work, f"{name}.strata")
    if os.path.exists(out):
        os.unlink(out)
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sampled_scale_program.py")
    env = dict(os.environ, STRATA_CUPTI_PATH=fake)
    rec = subprocess.run([strata, "record", "--gpu-sampling", "40/200", "-o", out, "--", "/usr/bin/python3",
                          program, fake, *args], capture_output=True, text=True, env=env)
    m = re.search(r"launched (\d+) steps_in_windows (\d+)", rec.stdout)
    if rec.returncode != 0 or not m or not os.path.exists(out):
        raise SystemExit(f"FAIL: the program did not run through ({rec.returncode}): {rec.stdout[-500:]} {rec.stderr[-2000:]}")
    launched, in_windows = int(m.group(1)), int(m.group(2))
    doc = json.loads(subprocess.run([strata, "report", out, "--format", "json", "--metric", "gpu_time"],
                                    capture_output=True, text=True, check=True).stdout)
    meta = doc["profile"]["meta"]
    sampling = {k: v for k, v in meta.items() if k.startswith("gpu_") and k != "gpu"}
    print(f"{name}: launched {launched}, {in_windows} in windows ({in_windows / launched:.1%}); {sampling}")
    few = "sampled GPU tracing opened" in rec.stderr
    if few != (int(meta.get("gpu_windows_opened", "0")) < 10):
        raise SystemExit(f"FAIL: {meta.get('gpu_windows_opened')} windows, and the few-windows line "
                         f"{'was' if few else 'was not'} printed: {rec.stderr[-600:]}")
    return launched, in_windows, doc, meta


def main():
    strata, fake, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    launched, in_windows, doc, meta = record(strata, fake, work, "sampled-scale", "4", "3")
    print(f"operators: {meta.get('operators', '')[:160]}")
    if meta.get("gpu_scale_basis") != "operator_calls":
        raise SystemExit(f"FAIL: not scaled by operator calls: {sampling}; gpu: {meta.get('gpu', '')}")
    kernels = [n for n in doc["nodes"] if n["kind"] == "kernel" and n["name"] == "step_kernel"]
    total = sum(n["metrics"].get("gpu_time", {}).get("exclusive", 0) for n in kernels)
    truth = launched * 1000.0
    by_time = total * float(meta["gpu_time_scale"]) / float(meta["gpu_scale"])
    print(f"GPU total scaled x{float(meta['gpu_scale']):.3g}: {total / truth:.3f} of the launches' total; "
          f"by the time share x{float(meta['gpu_time_scale']):.3g} alone: {by_time / truth:.3f}")
    if not 0.8 <= total / truth <= 1.25:
        raise SystemExit(f"FAIL: the scaled total is {total / truth:.3f} of the true one")
    if by_time / truth > 0.7:
        raise SystemExit(f"FAIL: the program was not slower inside windows ({by_time / truth:.3f} by time share)")
    if f"x{float(meta['gpu_scale']):.3g} (operator calls:" not in meta.get("gpu", ""):
        raise SystemExit(f"FAIL: meta gpu does not say the basis: {meta.get('gpu', '')}")
    # Calls that do not follow the time: 300 us of other work after each step outside windows.
    _, _, _, meta = record(strata, fake, work, "sampled-scale-uneven", "3", "1", "300")
    if meta.get("gpu_scale_basis") != "window_time" or meta.get("gpu_scale") != meta.get("gpu_time_scale"):
        raise SystemExit(f"FAIL: calls over-represented in windows still scaled the totals: {meta.get('gpu', '')}")
    if "the calls did not follow the work evenly" not in meta.get("gpu", ""):
        raise SystemExit(f"FAIL: meta gpu does not say why the time share was kept: {meta.get('gpu', '')}")
    # A short run: few windows, which `strata record` says (checked inside record()).
    _, _, _, meta = record(strata, fake, work, "sampled-scale-short", "0.6", "1")
    if int(meta.get("gpu_windows_opened", "0")) >= 10:
        raise SystemExit(f"FAIL: a 0.6 s run opened {meta.get('gpu_windows_opened')} windows of 40 ms every 200 ms")
    print("OK")


if __name__ == "__main__":
    main()
