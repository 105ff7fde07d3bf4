"""A Triton kernel with a known hot line, for PC sampling of Triton code (issue 4): a row-wise
softmax whose exp/sum chain dominates. Run: python3 triton_kernel.py [reps]."""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))  # TRITON-load
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)  # TRITON-exp
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * n_cols + cols, num / den, mask=mask)  # TRITON-store


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    # Data made on the CPU and copied: no PyTorch kernel runs, so the profile's only sampled
    # code is Triton's (PyTorch's cubins are megabytes each; the fixture stays small).
    xc = torch.randn(8192, 4096)
    x = xc.cuda()
    y = torch.empty_like(x)
    for _ in range(reps):
        softmax_rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=4096)
    torch.cuda.synchronize()
    err = (y.cpu() - torch.softmax(xc, dim=1)).abs().max().item()
    print(f"triton softmax: {reps} reps, max error {err:.2e}")


if __name__ == "__main__":
    main()
