"""A training loop whose forward pass calls operators from many distinct Python call sites (one
function of SITES statements, each its own instruction): more sites than a small cache of
operator contexts holds, repeated every step.
usage: many_sites_program.py STEPS [SITES]"""
import sys

import torch

steps = int(sys.argv[1])
sites = int(sys.argv[2]) if len(sys.argv) > 2 else 600
body = "\n".join("    x = torch.tanh(x * w)" for _ in range(sites))
scope = {"torch": torch}
exec(compile(f"def forward(x, w):\n{body}\n    return x\n", "many_sites_forward.py", "exec"), scope)
forward = scope["forward"]
w = torch.full((8,), 0.5, requires_grad=True)
for _ in range(steps):
    forward(torch.ones(8), w).sum().backward()
    w.grad = None
