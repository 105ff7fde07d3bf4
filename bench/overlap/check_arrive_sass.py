#!/usr/bin/env python3
"""Where ptxas put the producer's `full` arrive (BAR.ARV on barrier 1) in producer_late_arrive.cu's
plain kernels (cuobjdump -sass, plain or .gz), against the producer's `stats` work:
  late:  after the stats loop (its backward branch) and after the store that ends it;
  fixed: after the tile's shared stores and before the stats loop.
  python3 bench/overlap/check_arrive_sass.py SASS_LATE SASS_FIXED
Prints one line per kernel; exit status 1 when an arrive is not where the source puts it.
The producer's body: from its wait on `empty` (BAR.SYNC 0x2) to the outer loop's back branch;
the stats loop: the backward branch whose target lies inside that body.
"""
import gzip
import re
import sys

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [(int(m.group(1), 16), m.group(2)) for m in map(INSN.search, f) if m]


def where(insns):
    """(arrive, stats loop (start, branch), tile stores before the loop, stores after it), addresses."""
    wait = next(a for a, s in insns if re.search(r"BAR\.SYNC\S*\s+0x2\b", s))
    arrive = next(a for a, s in insns if a > wait and re.search(r"BAR\.ARV\s+0x1\b", s))
    loop = None
    for a, s in insns:
        m = re.search(r"\bBRA\s+0x([0-9a-f]+)", s)
        if a > wait and m and wait < int(m.group(1), 16) < a:
            loop = (int(m.group(1), 16), a)
            break
    if loop is None:
        raise ValueError("no stats loop (a backward branch inside the producer's body)")
    outer = next(a for a, s in insns if a > loop[1] and (m := re.search(r"\bBRA\s+0x([0-9a-f]+)", s)) and int(m.group(1), 16) < wait)
    stores = [a for a, s in insns if wait < a < outer and re.match(r"(@\S+\s+)?STS\b", s)]
    return arrive, loop, [a for a in stores if a < loop[0]], [a for a in stores if a > loop[1]]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_arrive_sass.py SASS_LATE SASS_FIXED")
    ok = True
    for variant, path in (("late", sys.argv[1]), ("fixed", sys.argv[2])):
        try:
            arrive, loop, before, after = where(read(path))
        except (OSError, StopIteration, ValueError) as e:
            print(f"{variant}: cannot place the arrive in {path}: {e or 'no producer wait / arrive found'}")
            ok = False
            continue
        if variant == "late":
            good = arrive > loop[1] and after and arrive > max(after)
            place = "after the stats loop and its store" if good else "NOT after the stats loop and its store"
        else:
            good = before and max(before) < arrive < loop[0]
            place = "after the tile's stores, before the stats loop" if good else "NOT between the tile's stores and the stats loop"
        print(f"{variant}: BAR.ARV 0x1 at {arrive:#06x}, {place} (stats loop {loop[0]:#06x}-{loop[1]:#06x}, "
              f"{len(before)} shared stores before it, {len(after)} after)")
        ok = ok and bool(good)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
