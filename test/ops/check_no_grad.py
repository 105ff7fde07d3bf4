#!/usr/bin/env python3
"""Operators run without grad mode (inference, decoding loops) create no autograd node, so the
runtime must not store their forward paths for a backward that never comes (that cost a context
per outermost operator). Records a Linear + ReLU forward loop under torch.no_grad() and checks
meta "operators": operators recorded, and no more than the few forward operators of the model's
construction (outside no_grad) stored with an autograd sequence, against 6,000 in the loop.
usage: check_no_grad.py STRATA WORKDIR"""
import os
import re
import subprocess
import sys

PROGRAM = """
import torch
m = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
x = torch.randn(32, 64)
with torch.no_grad():
    for _ in range(2000):
        y = m(x).sum()
print(float(y))
"""


def main():
    strata, workdir = sys.argv[1:3]
    os.makedirs(workdir, exist_ok=True)
    out = os.path.join(workdir, "ops-no-grad.strata")
    if os.path.exists(out):
        os.unlink(out)
    rec = subprocess.run([strata, "record", "-o", out, "--", "/usr/bin/python3", "-c", PROGRAM],
                         capture_output=True, text=True)
    if rec.returncode != 0 or not os.path.exists(out):
        raise SystemExit(f"record failed ({rec.returncode}): {rec.stderr.strip()[-2000:]}")
    rep = subprocess.run([strata, "report", out, "--limit", "1"], capture_output=True, text=True)
    status = next((l.split(":", 1)[1].strip() for l in rep.stdout.splitlines()
                   if l.strip().startswith("operators:")), "")
    print(f"meta operators: {status}")
    calls = re.search(r"(\d+) operator calls", status)
    forward = re.search(r"(\d+) forward with autograd sequence", status)
    if not status.startswith("recorded:") or not calls or int(calls.group(1)) < 2000:
        raise SystemExit("FAIL: operators not recorded")
    if not forward or int(forward.group(1)) > 100:
        raise SystemExit("FAIL: forward operators under no_grad were stored for a backward")
    print("ok")


if __name__ == "__main__":
    main()
