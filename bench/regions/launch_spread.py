#!/usr/bin/env python3
"""How much single launches scatter in gluon_repeat_check.py's analyses: per length, the
standard deviation of the launches' replayed errors around their row's mean (each row: one
process, density and loop), averaged over the rows, and the loop-only truth's max / min.

  launch_spread.py ANALYSIS.md [ANALYSIS.md ...]"""
import re
import statistics
import sys


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__.strip().splitlines()[-1].strip())
    print("| analysis | tokens | launches a row | sd of a launch's replayed error (mean over rows) | truth max / min (mean over rows) |")
    print("| --- | --- | --- | --- | --- |")
    for path in sys.argv[1:]:
        sd, spread, count = {}, {}, {}
        for line in open(path):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 8 and cells[1] in ("sparse", "dense"):
                errors = [float(x) for x in cells[7].split()]
                if len(errors) > 1:
                    sd.setdefault(cells[2], []).append(statistics.stdev(errors))
                    count[cells[2]] = len(errors)
            elif len(cells) == 9 and re.fullmatch(r"\d+", cells[1]) and cells[7].endswith("%"):
                spread.setdefault(cells[1], []).append(float(cells[7][:-1]))
        for tokens in sorted(sd, key=int):
            print(f"| {path.split('/')[-1]} | {tokens} | {count[tokens]} | {statistics.mean(sd[tokens]):.2f}% | "
                  f"{statistics.mean(spread.get(tokens, [float('nan')])):.2f}% |")


if __name__ == "__main__":
    main()
