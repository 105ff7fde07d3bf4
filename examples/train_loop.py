"""Bundled Strata example: a toy training loop whose time splits between Python and C++.

Python prepares batches (pure-Python list work), C++ multiplies matrices (ctypes call into
libstrata_example.so). Run it under Strata:  build/bin/strata record -- python3 examples/train_loop.py
"""
import ctypes
import os
import random
import sys

N = 128


def find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("STRATA_EXAMPLE_LIB", ""),
                  os.path.join(here, "..", "build", "lib", "libstrata_example.so")]
    for path in candidates:
        if path and os.path.exists(path):
            return ctypes.CDLL(os.path.abspath(path))
    sys.exit("example library not found: run scripts/build.sh (or set STRATA_EXAMPLE_LIB)")


LIB = find_library()
DoubleArray = ctypes.c_double * (N * N)
LIB.matmul.argtypes = [DoubleArray, DoubleArray, DoubleArray, ctypes.c_int]
LIB.sum_squares.argtypes = [DoubleArray, ctypes.c_int]
LIB.sum_squares.restype = ctypes.c_double


def make_batch(rng):
    # Deliberately Python-heavy: the "data loader" part of the step.
    values = [rng.random() for _ in range(N * N)]
    values = [v * 2.0 - 1.0 for v in values]
    return DoubleArray(*values)


def forward(weights, batch):
    out = DoubleArray()
    LIB.matmul(batch, weights, out, N)
    return LIB.sum_squares(out, N * N)


def train(steps):
    rng = random.Random(0)
    weights = make_batch(rng)
    loss = 0.0
    for _ in range(steps):
        batch = make_batch(rng)
        loss = forward(weights, batch)
    return loss


if __name__ == "__main__":
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(f"loss after {steps} steps: {train(steps):.3f}")
