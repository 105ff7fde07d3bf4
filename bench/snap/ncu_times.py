"""Kernel durations from an ncu --csv report (gpu__time_duration.sum), for bench/snap/run_h100.sh.

  ncu_times.py NCU.csv LABEL [N [GRID]]
prints the median and min over the profiled launches, the first launch apart (in a replay it is
the correctness launch, not a timed one), and with N the N-th launch (1-based: in a run, the
snapped launch, counted over every launch of the name as the snap counts them). With GRID
("15,8,1"), the median and min are taken over the launches of that grid only: one kernel name
can run several shapes in a program (the third H100 run's convolution ran 15x8x1 and 98x1x1, and
a median over both was 1 us off the snapped shape's). ncu spells units "nsecond"/"usecond" up to 2023 and "ns"/"us" since; an unknown
unit is reported with the CSV's first rows instead of being read as a number.
"""
import csv
import statistics
import sys

SCALE_TO_US = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}


def parse_dim3(text):
    """ncu writes a grid as "(15, 8, 1)"."""
    try:
        return tuple(int(x) for x in text.strip("() ").split(","))
    except ValueError:
        return None


def main():
    path, label = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    grid = tuple(int(x) for x in sys.argv[4].split(",")) if len(sys.argv) > 4 else None
    rows = [r for r in csv.reader(line for line in open(path, errors="replace") if line.startswith('"'))]
    if not rows:
        print(f"ncu {label}: no rows")
        return
    head = rows[0]
    try:
        mi, vi, ui = head.index("Metric Name"), head.index("Metric Value"), head.index("Metric Unit")
    except ValueError:
        print(f"ncu {label}: no metric columns; first rows: {rows[:2]}")
        return
    mine = [r for r in rows[1:] if r[mi] == "gpu__time_duration.sum"]
    odd = sorted({r[ui] for r in mine} - SCALE_TO_US.keys())
    if odd:
        print(f"ncu {label}: unknown units {odd}; first rows: {rows[:2]}")
        return
    if not mine:
        print(f"ncu {label}: no gpu__time_duration.sum rows; first rows: {rows[:2]}")
        return
    v = [float(r[vi].replace(",", "")) * SCALE_TO_US[r[ui]] for r in mine]
    rest = v[1:] or v
    line = (f"ncu {label}: gpu__time_duration over {len(v)} launches: first {v[0]:.2f} us; "
            f"the others median {statistics.median(rest):.2f} us, min {min(rest):.2f} us")
    if grid:
        gi = head.index("Grid Size") if "Grid Size" in head else -1
        shape = [x for r, x in zip(mine, v) if gi >= 0 and parse_dim3(r[gi]) == grid]
        same = shape[1:] or shape
        line += (f"; grid {grid}: {len(shape)} launches, the others median {statistics.median(same):.2f} us, "
                 f"min {min(same):.2f} us" if shape else f"; grid {grid}: no launches (no 'Grid Size' column?)")
    if n:
        line += f"; launch {n}: " + (f"{v[n - 1]:.2f} us" if n <= len(v) else f"none (only {len(v)})")
    print(line)
    print(f"ncu {label}: all (us): " + " ".join(f"{x:.2f}" for x in v))


if __name__ == "__main__":
    main()
