"""Analyzer workload (kernel-fusion rule): a chain of small elementwise operations on a small
tensor, each its own kernel launch. `--twin` does the same arithmetic on one large tensor in a
few launches: the rule must not fire.  usage: small_ops.py [--twin] [steps]"""
import sys

import torch


def activation(x):
    return ((x * 1.01 + 0.5).sin() * 0.9 - 0.1).relu().exp().clamp(max=4.0)  # CHAIN_LINE


def main():
    twin = "--twin" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--twin"]
    steps = int(args[0]) if args else 2000
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    if twin:
        x = torch.randn(steps, 4096, device=dev)
        y = activation(x)  # the whole batch at once
        total = float(y.sum())
    else:
        x = torch.randn(4096, device=dev)
        total = 0.0
        for _ in range(steps):
            x = activation(x) * 0.25
        total = float(x.sum())
    if dev == "cuda":
        torch.cuda.synchronize()
    print(f"total {total:.3f}")


if __name__ == "__main__":
    main()
