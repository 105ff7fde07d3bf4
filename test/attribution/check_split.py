#!/usr/bin/env python3
"""Records a workload whose work splits ~75/25 between two functions and fails when Strata
attributes it wrongly: by function name (share within 10 points) and by file:line (the call
lines marked HOT_CALL_LINE / COLD_CALL_LINE in the workload's source).

usage: check_split.py STRATA WORKDIR SOURCE HOT COLD -- CMD ARGS...
       check_split.py STRATA WORKDIR SOURCE HOT COLD --profile FILE   (a recorded fixture)
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from source_markers import marker_line  # noqa: E402


def base_name(name):
    return name.split("(")[0].strip()


def main():
    fixture = None
    if "--profile" in sys.argv:
        i = sys.argv.index("--profile")
        fixture = sys.argv[i + 1]
        sys.argv[i:i + 2] = ["--"]
    sep = sys.argv.index("--")
    strata, workdir, source, hot, cold = sys.argv[1:sep]
    cmd = sys.argv[sep + 1:]
    os.makedirs(workdir, exist_ok=True)
    out = os.path.join(workdir, f"split-{hot}.strata")
    if os.path.exists(out):
        os.unlink(out)
    rec = None if fixture else subprocess.run([strata, "record", "-o", out, "--period-ms", "5", "--", *cmd],
                         capture_output=True, text=True)
    if fixture:
        out = fixture
    elif rec.returncode != 0 or not os.path.exists(out):
        raise SystemExit(f"record failed ({rec.returncode}): {rec.stderr.strip()}")
    rep = subprocess.run([strata, "report", out, "--view", "top-down", "--format", "json"],
                         capture_output=True, text=True, check=True)
    report = json.loads(rep.stdout)
    metric = report["metrics"][0]["name"]
    nodes = {n["id"]: n for n in report["nodes"]}
    root = next(n for n in nodes.values() if n["parent"] in (None, -1))
    total = root["metrics"][metric]["inclusive"]
    if total <= 0:
        raise SystemExit("profile has no samples")

    def has_ancestor_named(node, name):
        p = node["parent"]
        while p not in (None, -1):
            if base_name(nodes[p]["name"]) == name:
                return True
            p = nodes[p]["parent"]
        return False

    failures = []
    shares = {}
    for fn, marker, expected in ((hot, "HOT_CALL_LINE", 75.0), (cold, "COLD_CALL_LINE", 25.0)):
        mine = [n for n in nodes.values() if base_name(n["name"]) == fn]
        top = [n for n in mine if not has_ancestor_named(n, fn)]
        value = sum(n["metrics"][metric]["inclusive"] for n in top)
        share = 100.0 * value / total
        shares[fn] = share
        # The two functions together are ~100% of the work; compare the split between them.
        want_line = marker_line(source, marker)
        on_line = sum(n["metrics"][metric]["inclusive"] for n in top
                      if n["line"] == want_line and os.path.basename(n["file"] or "") == os.path.basename(source))
        if value == 0 or on_line / value < 0.9:
            lines = sorted({(os.path.basename(n['file'] or '?'), n['line']) for n in top})
            failures.append(f"{fn}: expected most time at {os.path.basename(source)}:{want_line}, got {lines}")
    both = shares[hot] + shares[cold]
    if both < 80.0:
        failures.append(f"{hot}+{cold} cover only {both:.1f}% of the samples")
    split = 100.0 * shares[hot] / both if both else 0.0
    if abs(split - 75.0) > 10.0:
        failures.append(f"{hot} has {split:.1f}% of the {hot}+{cold} time, expected 75 +- 10")
    print(f"{os.path.basename(source)}: {hot} {shares[hot]:.1f}%  {cold} {shares[cold]:.1f}%  "
          f"split {split:.1f}/{100 - split:.1f}  samples-total {total:.0f} {metric}")
    if failures:
        for f in failures:
            print("FAIL:", f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
