#!/usr/bin/env python3
"""Packs Proton traces into tar files of at most 15 MiB for the trip back from the device: a call
brings back 8 files of at most 16 MiB, 64 MiB together. The packing is first-fit over the sorted
names, so the same files give the same bins in a later call on the same machine: --bins picks
which to write (the rest stay there for the next call to take).
usage: pack_traces.py OUT_DIR [--bins 0,1,2,3] TRACE..."""
import argparse
import os
import subprocess

CAP = 15 << 20


def bins_of(files):
    bins = []
    for f in sorted(files):
        size = os.path.getsize(f) + 1024  # the tar header and padding
        fit = next((b for b in bins if b[0] + size <= CAP), None)
        if fit is None:
            fit = [0, []]
            bins.append(fit)
        fit[0] += size
        fit[1].append(f)
    return [names for _, names in bins]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--bins", default="0,1,2,3")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    bins = bins_of(a.traces)
    want = [int(i) for i in a.bins.split(",") if i != ""]
    for i in want:
        if i < len(bins):
            subprocess.run(["tar", "-cf", os.path.join(a.out, f"traces_{i}.tar"), *bins[i]], check=True)
    left = [i for i in range(len(bins)) if i not in want]
    print(f"{len(a.traces)} traces in {len(bins)} files; written {[i for i in want if i < len(bins)]}"
          + (f"; left for another call (--bins): {left}" if left else ""))


if __name__ == "__main__":
    main()
