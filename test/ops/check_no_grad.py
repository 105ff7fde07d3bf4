#!/usr/bin/env python3
"""Operators run without grad mode (inference, decoding loops) create no autograd node, so the
runtime must not store their forward paths for a backward that never comes (that cost a context
per outermost operator). Records a Linear + ReLU forward loop under torch.no_grad() and checks
meta "operators": operators recorded, and no more than the few forward operators of the model's
construction (outside no_grad) stored with an autograd sequence, against 6,000 in the loop.
usage: check_no_grad.py STRATA WORKDIR"""
import os
import re
import sys

from operators_meta import record_operators_line

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
    status = record_operators_line(strata, os.path.join(workdir, "ops-no-grad.strata"),
                                   ["/usr/bin/python3", "-c", PROGRAM])
    calls = re.search(r"(\d+) operator calls", status)
    forward = re.search(r"(\d+) forward with autograd sequence", status)
    if not status.startswith("recorded:") or not calls or int(calls.group(1)) < 2000:
        raise SystemExit("FAIL: operators not recorded")
    if not forward or int(forward.group(1)) > 100:
        raise SystemExit("FAIL: forward operators under no_grad were stored for a backward")
    print("ok")


if __name__ == "__main__":
    main()
