"""A kernel's GPU times as Strata's own CUPTI records give them, for bench/snap/run_h100.sh.

  strata report --format json --view top-down PROFILE | strata_kernel_times.py TOKEN LABEL [BLOCKS]
prints, for the kernel nodes whose name holds TOKEN, the launch count, min, mean and max of
`gpu_time` grouped by grid size (blocks per launch: a kernel name can run several shapes), the
group of BLOCKS blocks marked. The same instrument read from the snapped run's profile and from a
profile of `strata replay` compares run and replay without the replay's events.
"""
import json
import sys
from collections import defaultdict


def main():
    token, label = sys.argv[1], sys.argv[2]
    blocks = float(sys.argv[3]) if len(sys.argv) > 3 else None
    try:
        doc = json.load(sys.stdin)
    except ValueError as e:
        print(f"strata {label}: no report ({e})")
        return
    groups = defaultdict(lambda: [0, 0.0, float("inf"), 0.0])  # count, total, min, max
    for n in doc.get("nodes", []):
        if n.get("kind") != "kernel" or token not in n.get("name", ""):
            continue
        m = n.get("metrics", {})
        g, grid = m.get("gpu_time"), m.get("grid_size")
        if not g or not g.get("count"):
            continue
        key = round(grid["mean"]) if grid and grid.get("count") else -1
        c = groups[key]
        c[0] += g["count"]
        c[1] += g["exclusive"]
        c[2] = min(c[2], g["min"])
        c[3] = max(c[3], g["max"])
    if not groups:
        print(f"strata {label}: no kernel node holds {token!r}")
        return
    for key, (count, total, lo, hi) in sorted(groups.items(), key=lambda kv: -kv[1][0]):
        mark = " <- the snapped shape" if blocks is not None and key == blocks else ""
        print(f"strata {label}: {count} launches of {key} blocks: min {lo / 1e3:.2f} us, "
              f"mean {total / count / 1e3:.2f} us, max {hi / 1e3:.2f} us{mark}")


if __name__ == "__main__":
    main()
