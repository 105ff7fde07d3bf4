#!/usr/bin/env python3
"""Operator contexts cached by Python call path must not hand one native call site's frames to
another: call_sites_program.py runs the same Python frames through strata_test_call_a, then
strata_test_call_b (same stack depth). Each backward operator's time belongs under the call site
its forward ran through: both sites hold 25-75% of the backward time, none of it elsewhere. In
verify mode (every hit also taken in full) no cached context differs, and the cache saw the sites
change (meta "operators").
usage: check_context_call_sites.py STRATA WORKDIR LIBTWO_CALL_SITES.so"""
import json
import os
import re
import subprocess
import sys

from operators_meta import record_operators_line

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "call_sites_program.py")


def backward_by_site(strata, profile):
    rep = subprocess.run([strata, "report", profile, "--format", "json"], capture_output=True, text=True)
    if rep.returncode != 0:
        raise SystemExit(f"report failed: {rep.stderr.strip()}")
    nodes = {n["id"]: n for n in json.loads(rep.stdout)["nodes"]}

    def ancestors(n):
        while n["parent"] >= 0:
            n = nodes[n["parent"]]
            yield n["name"]

    def is_backward(name):
        return re.search(r"Backward\d+$", name) is not None

    by_site = {"strata_test_call_a": 0.0, "strata_test_call_b": 0.0, "elsewhere": 0.0}
    for n in nodes.values():
        if not is_backward(n["name"]):
            continue
        names = list(ancestors(n))
        if any(is_backward(a) for a in names):
            continue  # counted with the outermost backward operator
        site = next((s for s in ("strata_test_call_a", "strata_test_call_b") if s in names), "elsewhere")
        by_site[site] += n["metrics"]["cpu_time"]["inclusive"]
    return by_site


def main():
    strata, workdir, lib = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    argv = ["/usr/bin/python3", PROGRAM, lib, "4"]
    profile = os.path.join(workdir, "ops-call-sites.strata")
    record_operators_line(strata, profile, argv)
    by_site = backward_by_site(strata, profile)
    total = sum(by_site.values())
    print("backward cpu_time by call site (ms):", {k: round(v / 1e6) for k, v in by_site.items()})
    if total <= 0:
        raise SystemExit("FAIL: no backward operator time")
    for site in ("strata_test_call_a", "strata_test_call_b"):
        if not 0.25 <= by_site[site] / total <= 0.75:
            raise SystemExit(f"FAIL: {site} holds {by_site[site] / total:.0%} of the backward time (half of the run went through it)")
    if by_site["elsewhere"] > 0.05 * total:
        raise SystemExit(f"FAIL: {by_site['elsewhere'] / total:.0%} of the backward time under neither call site")
    status = record_operators_line(strata, os.path.join(workdir, "ops-call-sites-verify.strata"), argv,
                                   env=dict(os.environ, STRATA_OP_CONTEXT_CACHE="verify"))
    if "differed" in status:
        raise SystemExit("FAIL: cached contexts differed from fresh ones")
    if "native frames had changed" not in status:
        raise SystemExit("FAIL: the cache did not see the call site change")
    print("ok")


if __name__ == "__main__":
    main()
