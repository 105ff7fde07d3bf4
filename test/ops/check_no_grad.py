#!/usr/bin/env python3
"""Operators that create no autograd node (inference and decoding loops under torch.no_grad(), and
in grad mode operators on tensors that need no gradient) get no backward, so the runtime must not
store their forward paths for one (that cost a context per outermost operator). Records a Linear
+ ReLU forward loop under torch.no_grad(), and a loop of tensor arithmetic in grad mode without
requires_grad, and checks meta "operators": operators recorded, and no more forward operators
stored than the few of the model's construction, against 6,000 in each loop.
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

# Grad mode on, nothing requires a gradient: every operator has a sequence number, none a node.
GRAD_MODE_NO_NODES = """
import torch
x = torch.randn(32, 64)
w = torch.randn(64, 64)
for _ in range(2000):
    y = torch.relu(x @ w).sum()
print(float(y))
"""


def main():
    strata, workdir = sys.argv[1:3]
    os.makedirs(workdir, exist_ok=True)
    for name, program in (("no-grad", PROGRAM), ("grad-mode-no-nodes", GRAD_MODE_NO_NODES)):
        status = record_operators_line(strata, os.path.join(workdir, f"ops-{name}.strata"),
                                       ["/usr/bin/python3", "-c", program])
        calls = re.search(r"(\d+) operator calls", status)
        forward = re.search(r"(\d+) forward that created an autograd node", status)
        if not status.startswith("recorded:") or not calls or int(calls.group(1)) < 2000:
            raise SystemExit(f"FAIL ({name}): operators not recorded")
        if not forward or int(forward.group(1)) > 100:
            raise SystemExit(f"FAIL ({name}): forward operators that created no autograd node were stored for a backward")
    print("ok")


if __name__ == "__main__":
    main()
