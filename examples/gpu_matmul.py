"""GPU example: a few PyTorch matmuls on CUDA. The demo runs it only when a GPU is present.
Today Strata records its CPU side (Python and native frames); GPU kernels join the same tree
with GPU collection (issue 3)."""
import sys

import torch


def step(a, b):
    return (a @ b).relu().sum()


def main(iters=200):
    if not torch.cuda.is_available():
        sys.exit("no CUDA device")
    a = torch.randn(2048, 2048, device="cuda")
    b = torch.randn(2048, 2048, device="cuda")
    total = 0.0
    for _ in range(iters):
        total += float(step(a, b))
    torch.cuda.synchronize()
    print(f"checksum {total:.1f}")


if __name__ == "__main__":
    main()
