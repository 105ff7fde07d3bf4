#!/usr/bin/env python3
"""Checks a profile in which the runtime handed region buffers to an ordinary program's launches
(test/regions/capture_h100.sh, issue 7 part 2):
  check_capture.py STRATA PROFILE
- meta regions says 3 launches were captured (STRATA_REGIONS_MAX=3 of 6 launches);
- under the GEMM kernel's node: kernel > k-loop > k-loop (iteration) > compute, and load and
  epilogue, as the markers nest in test/regions/kernels.cuh;
- one `kernel` interval per lane: 3 launches x 16 blocks x 2 warp groups;
- the mean `kernel` region lasts no longer than the kernel's CUPTI GPU time and most of it;
- every captured raw buffer is kept in the profile (`strata regions --list`);
- each region frame's source line (from plain_app's names table, `@kernels.cuh:N`) is the line
  of that region's STRATA_REGION_START in test/regions/kernels.cuh."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from strata_json import report_json  # noqa: E402


def kept_launches(strata, profile):
    """The raw buffers the profile keeps, as `strata regions --list` lists them (the typed
    region-launches section, or the first form's blobs, converted by the core)."""
    r = subprocess.run([strata, "regions", profile, "--list", "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"strata regions --list failed: {r.stderr.strip()}")
    return json.loads(r.stdout)["launches"]


def main():
    strata, profile = sys.argv[1:3]
    d = report_json(strata, profile, "region_time", "--limit", "0")
    errors = []
    meta = d["profile"]["meta"].get("regions", "")
    if not meta.startswith("collected: 3 launches captured"):
        errors.append(f"meta regions = {meta!r}")
    nodes = {n["id"]: n for n in d["nodes"]}
    kernels = [n for n in d["nodes"] if n["kind"] == "kernel" and "GemmKernel" in n["name"]]
    if len(kernels) != 1:
        raise SystemExit(f"FAIL: {len(kernels)} GemmKernel nodes")
    k = kernels[0]

    def path(n):
        out = []
        while n["id"] != k["id"]:
            out.append(n["name"])
            n = nodes[n["parent"]]
        return " > ".join(reversed(out))

    regions = {path(n): n for n in d["nodes"] if n["kind"] == "region"}
    for want in ("kernel", "kernel > k-loop", "kernel > k-loop > k-loop (iteration)",
                 "kernel > k-loop > k-loop (iteration) > compute", "kernel > k-loop > load (cp.async)",
                 "kernel > epilogue"):
        if want not in regions:
            errors.append(f"no region path {want!r} (have {sorted(regions)})")
    top = regions.get("kernel")
    if top:
        lanes = top["metrics"]["region_time"]["count"]
        if lanes != 3 * 16 * 2:
            errors.append(f"{lanes} kernel intervals, expected 96 (3 launches x 16 blocks x 2 warp groups)")
        region_ns = top["metrics"]["region_time"]["mean"]
        g = report_json(strata, profile, "gpu_time", "--limit", "0")
        kg = [n for n in g["nodes"] if n["id"] == k["id"]][0]["metrics"]["gpu_time"]
        gpu_ns = kg["inclusive"] / max(kg["count"], 1)
        print(f"kernel region mean {region_ns / 1000:.2f} us per lane, kernel GPU time {gpu_ns / 1000:.2f} us per launch")
        if not 0.5 * gpu_ns <= region_ns <= 1.02 * gpu_ns:
            errors.append(f"kernel region {region_ns:.0f} ns against GPU time {gpu_ns:.0f} ns")
    # The markers' lines: the first STRATA_REGION_START of each GEMM region in kernels.cuh.
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels.cuh")).read().split("\n")
    ids = {"kernel": "kKernel", "k-loop": "kKLoop", "load (cp.async)": "kLoad", "compute": "kCompute", "epilogue": "kEpilogue"}
    for name, const in ids.items():
        want = next(i + 1 for i, l in enumerate(src) if re.search(rf"STRATA_REGION_START\(prof, {const}\)", l))
        frames = [n for n in d["nodes"] if n["kind"] == "region" and n["name"] == name]
        got = {(os.path.basename(n.get("file", "")), n.get("line", 0)) for n in frames}
        if got != {("kernels.cuh", want)}:
            errors.append(f"region {name!r}: frames at {sorted(got)}, the marker is at kernels.cuh:{want}")
    kept = kept_launches(strata, profile)
    if len(kept) != 3 or any(l["bytes"] <= 0 or l["kernel"] != k["name"] for l in kept):
        errors.append(f"{len(kept)} raw region buffers kept (expected 3 of the GEMM kernel)")
    print(f"{len(regions)} region paths under {k['name'][:60]}; {len(kept)} raw buffers kept")
    if errors:
        print("FAIL:\n  " + "\n  ".join(errors))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
