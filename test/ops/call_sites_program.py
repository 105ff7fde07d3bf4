"""The same Python frames reach one forward pass through two native call sites (ctypes calls a
Python callback from strata_test_call_a for the first half of the run, from strata_test_call_b
for the second). Each backward runs outside the callback, so its path is the forward's context.

usage: call_sites_program.py LIBTWO_CALL_SITES.so [SECONDS]"""
import ctypes
import sys
import time

import torch


def main():
    lib = ctypes.CDLL(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 4.0
    torch.set_num_threads(1)
    callback_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)
    x = torch.randn(256, 256)
    w = torch.randn(256, 256, requires_grad=True)
    pending = []

    def forward(_):
        pending.append((x @ w).relu().sum())
        return 0

    callback = callback_type(forward)
    for site in (lib.strata_test_call_a, lib.strata_test_call_b):
        end = time.monotonic() + seconds / 2
        while time.monotonic() < end:
            site(callback, 0)  # one Python instruction for both sites
            pending.pop().backward()
    print("ok")


if __name__ == "__main__":
    main()
