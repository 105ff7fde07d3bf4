#!/usr/bin/env python3
"""A launch-bound torch "GPU program" on the stand-in CUDA of profiler_runtime/tests/fake_cupti:
each step runs a few torch operators on the CPU and launches one fake kernel of 1,000 ns. While a
sampled-tracing window is open (the fake CUPTI has a subscriber with the launch callback on) each
step takes SLOW times as long, as tracing slows a real launch-bound program. With IDLE_US, each
step outside the windows also spends that long on other work (no operator, no launch): the
windows then hold more of the calls than of the time, as when they happen to fall on busy phases.

usage: sampled_scale_program.py FAKE_CUPTI SECONDS SLOW [IDLE_US]
prints "launched N steps_in_windows M"
"""
import ctypes
import sys
import time

import torch


def main():
    fake = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
    seconds, slow = float(sys.argv[2]), float(sys.argv[3])
    idle = float(sys.argv[4]) / 1e6 if len(sys.argv) > 4 else 0.0
    if fake.strata_fake_cuinit() != 0:
        raise SystemExit("sampled_scale_program: InitializeInjection did not run (not under strata record?)")
    fake.strata_fake_launch.argtypes = [ctypes.c_char_p, ctypes.c_uint64]
    kernel = ctypes.c_char_p(b"step_kernel")
    x = torch.ones(16)
    launched = in_windows = 0
    end = time.perf_counter() + seconds
    while True:
        t0 = time.perf_counter()
        if t0 >= end:
            break
        for _ in range(4):
            x = torch.add(x, 1.0)
        fake.strata_fake_launch(kernel, 1000)
        launched += 1
        if fake.strata_fake_tracing():
            in_windows += 1
            spin = t0 + (time.perf_counter() - t0) * slow
        else:
            spin = time.perf_counter() + idle
        while time.perf_counter() < spin:
            pass
    print(f"launched {launched} steps_in_windows {in_windows}")


if __name__ == "__main__":
    main()
