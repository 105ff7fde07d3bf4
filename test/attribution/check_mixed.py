#!/usr/bin/env python3
"""Records the bundled example (Python calling C++ through ctypes) and fails unless the merged
call path holds: the native matmul frame sits below the Python frame forward(), which sits below
train(), with their source files and lines.

usage: check_mixed.py STRATA WORKDIR EXAMPLE_LIB -- CMD ARGS...
       check_mixed.py STRATA WORKDIR EXAMPLE_LIB --profile FILE   (a recorded fixture)
"""
import json
import os
import subprocess
import sys


def main():
    fixture = None
    if "--profile" in sys.argv:
        i = sys.argv.index("--profile")
        fixture = sys.argv[i + 1]
        sys.argv[i:i + 2] = ["--"]
    sep = sys.argv.index("--")
    strata, workdir, lib = sys.argv[1:sep]
    cmd = sys.argv[sep + 1:]
    os.makedirs(workdir, exist_ok=True)
    out = os.path.join(workdir, "mixed.strata")
    env = dict(os.environ, STRATA_EXAMPLE_LIB=lib)
    rec = None if fixture else subprocess.run([strata, "record", "-o", out, "--period-ms", "5", "--", *cmd],
                         capture_output=True, text=True, env=env)
    if fixture:
        out = fixture
    elif rec.returncode != 0:
        raise SystemExit(f"record failed ({rec.returncode}): {rec.stderr.strip()}")
    rep = subprocess.run([strata, "report", out, "--format", "json"], capture_output=True,
                         text=True, check=True)
    report = json.loads(rep.stdout)
    metric = report["metrics"][0]["name"]
    nodes = {n["id"]: n for n in report["nodes"]}

    def path(node):
        chain = []
        while True:
            chain.append(node)
            if node["parent"] in (None, -1):
                return list(reversed(chain))
            node = nodes[node["parent"]]

    matmul = [n for n in nodes.values() if n["name"].split("(")[0] == "matmul"]
    if not matmul:
        raise SystemExit("FAIL: no native matmul frame in the profile")
    weight = sum(n["metrics"][metric]["inclusive"] for n in matmul)
    good = 0.0
    for n in matmul:
        kinds = [(p["kind"], p["name"], os.path.basename(p["file"] or "")) for p in path(n)]
        py = [k for k in kinds if k[0] == "python"]
        names = [k[1] for k in py]
        if "forward" in names and "train" in names and names.index("train") < names.index("forward") \
                and all(k[2] == "train_loop.py" for k in py if k[1] in ("forward", "train")) \
                and os.path.basename(n["file"] or "") == "matrix_ops.cpp" and n["line"] > 0:
            good += n["metrics"][metric]["inclusive"]
    share = good / weight if weight else 0.0
    print(f"matmul samples under train > forward with matrix_ops.cpp lines: {100 * share:.1f}%")
    if share < 0.9:
        example = path(matmul[0])
        print("FAIL: example path:", " > ".join(f"{p['kind']}:{p['name']}" for p in example))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
