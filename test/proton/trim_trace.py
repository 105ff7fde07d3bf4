#!/usr/bin/env python3
"""Keeps the first N CTAs of a Proton chrome trace (its in-kernel events: processes
"<kernel> Core<SM> CTA<block>"), so that a fixture stays small; other events are kept as they are.

  python3 test/proton/trim_trace.py IN.chrome_trace[.gz] OUT.chrome_trace --ctas 4"""
import argparse
import gzip
import json
import re


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--ctas", type=int, default=4)
    a = ap.parse_args()
    opener = gzip.open if a.src.endswith(".gz") else open
    with opener(a.src, "rt") as f:
        doc = json.load(f)
    pid = re.compile(r" Core\d+ CTA(\d+)$")

    def keep(e):
        m = pid.search(str(e.get("pid", "")))
        return m is None or int(m.group(1)) < a.ctas

    doc["traceEvents"] = [e for e in doc["traceEvents"] if keep(e)]
    with open(a.dst, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
