#!/usr/bin/env python3
"""Step times of alternating case-study runs (lines "CASE VARIANT step_ms=X" that case_studies.py
prints) → per variant the median, min and max over the runs and the speedup of its median over the
case's first variant (the base). Prints a table; --json FILE also writes it as JSON.

usage: case_study_summary.py [--json FILE] LOG [LOG...]
"""
import json
import re
import statistics
import sys

LINE = re.compile(r"^(\w+) (.+) step_ms=([0-9.]+)$")


def main():
    args = sys.argv[1:]
    out = None
    if args[:1] == ["--json"]:
        if len(args) < 2:
            sys.exit(__doc__.strip())
        out, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__.strip())
    runs = {}  # (case, variant) -> step times, in first-seen order
    for path in args:
        try:
            lines = open(path).read().splitlines()
        except OSError as e:
            sys.exit(f"case_study_summary.py: {e}")
        for line in lines:
            m = LINE.match(line.strip())
            if m:
                runs.setdefault((m.group(1), m.group(2)), []).append(float(m.group(3)))
    rows, base = [], {}
    for (case, variant), times in runs.items():
        med = statistics.median(times)
        base.setdefault(case, med)
        rows.append({"case": case, "variant": variant, "runs": len(times), "step_ms": times,
                     "median_ms": med, "min_ms": min(times), "max_ms": max(times), "speedup": base[case] / med})
    for r in rows:
        print(f"{r['case']:12} {r['variant']:24} runs {r['runs']}  median {r['median_ms']:9.3f} ms  "
              f"[{r['min_ms']:.3f} .. {r['max_ms']:.3f}]  x{r['speedup']:.2f}")
    if out:
        with open(out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
