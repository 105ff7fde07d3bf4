# Target for "names are never lost": writes MODULES modules of DEPTH functions each to a temp
# dir, imports them all, then calls every function once: in each module f0 calls f1 ... calls
# f<DEPTH-1>, which spins SPIN iterations (and at least MIN_MS milliseconds of wall time, so that
# a fast interpreter on a fast machine still leaves every chain long enough to be sampled), so
# samples see whole chains of distinct code objects. Default 1000 x 100 = 100,000 functions.
import importlib
import os
import shutil
import sys
import tempfile

MODULES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
DEPTH = int(sys.argv[2]) if len(sys.argv) > 2 else 100
SPIN = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
MIN_MS = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0


def write_module(path, m):
    lines = ["from time import perf_counter as _clock\n"]
    for i in range(DEPTH - 1):
        lines.append("def m%d_f%d(n):\n    return m%d_f%d(n) + 1\n" % (m, i, m, i + 1))
    lines.append("def m%d_f%d(n):\n    s = 0\n    end = _clock() + %r\n    while True:\n"
                 "        for i in range(n):\n            s += i\n        if _clock() >= end:\n            return s\n"
                 % (m, DEPTH - 1, MIN_MS / 1000.0))
    lines.append("def run(n):\n    return m%d_f0(n)\n" % m)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    root = tempfile.mkdtemp(prefix="strata_many_")
    for m in range(MODULES):
        write_module(os.path.join(root, "strata_many_%d.py" % m), m)
    sys.path.insert(0, root)
    mods = [importlib.import_module("strata_many_%d" % m) for m in range(MODULES)]
    total = 0
    for mod in mods:
        total += mod.run(SPIN)
    shutil.rmtree(root, ignore_errors=True)
    print("called", MODULES * DEPTH, "functions", total % 7)


main()
