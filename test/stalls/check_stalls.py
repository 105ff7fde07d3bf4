#!/usr/bin/env python3
"""Checks PC-sampling profiles recorded on the H100 (test/stalls/record_h100.sh) as the core
decodes them: cubins and SASS listings carried in the profile, samples below kernel nodes.
  check_stalls.py STRATA --profile FILE --cuda SOURCE.cu     (stall_kernels)
  check_stalls.py STRATA --profile FILE --triton SOURCE.py   (triton_kernel.py)
- every pc node has its SASS text and a source line in the workload's file;
- mem_chain: long_scoreboard dominates, and its hottest line is the STALL-mem line;
- math_chain: wait dominates; its hottest line is STALL-math (inside the inlined helper) and
  its samples carry "inlined at" the STALL-math-call line or the one after it;
- Triton: the hottest line of the kernel's own file is one of its TRITON-* lines (Triton's
  line info has no inlined-at chains, so code inlined from triton/language keeps its library
  line: reported, not failed).
Lines are found by marker comments (test/source_markers.py), files by base name (the profile
holds the H100's paths)."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from source_markers import marker_line  # noqa: E402
from strata_json import report_json  # noqa: E402


def report(strata, profile):
    return report_json(strata, profile, "pc_samples", "--limit", "0")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("strata")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--cuda")
    ap.add_argument("--triton")
    a = ap.parse_args()
    source = a.cuda or a.triton
    base = os.path.basename(source)
    r = report(a.strata, a.profile)
    meta = r["profile"]["meta"]
    errors = []
    if not meta.get("pc_sampling", "").startswith("collected"):
        errors.append(f"meta pc_sampling = {meta.get('pc_sampling')!r}")
    if not meta.get("sass", "").startswith("embedded"):
        errors.append(f"meta sass = {meta.get('sass')!r}")
    pcs = [n for n in r["nodes"] if n["kind"] == "pc"]
    if not pcs:
        raise SystemExit("FAIL: no pc nodes")
    for n in pcs:
        if not re.match(r"^\+0x[0-9a-f]+ [A-Z@]", n["name"]) and n["line"] == 0:
            errors.append(f"pc node {n['id']} has neither SASS text nor a line: {n['name']!r}")
    lined = [n for n in pcs if os.path.basename(n["file"] or "") == base and n["line"] > 0]
    print(f"{len(pcs)} pc nodes, {len(lined)} with a line in {base}, "
          f"{sum(1 for n in pcs if re.match(r'^[+]0x[0-9a-f]+ [A-Z@]', n['name']))} with SASS text")
    if a.cuda and len(lined) < 0.9 * len(pcs):
        errors.append(f"only {len(lined)} of {len(pcs)} pc nodes have a line in {base}")
    stalls = {k["kernel"].split("(")[0]: k for k in r.get("gpu_stalls", [])}

    def dominant(kernel, reason):
        k = stalls.get(kernel)
        if not k:
            errors.append(f"no stall breakdown for {kernel}")
            return None
        top = k["reasons"][0]
        print(f"{kernel}: {int(k['samples'])} samples, top {top['reason']} {top['share']:.3f}; hottest line "
              f"{os.path.basename(k['lines'][0]['file'])}:{k['lines'][0]['line']}")
        if top["reason"] != reason:
            errors.append(f"{kernel}: dominant stall {top['reason']}, expected {reason}")
        return k

    if a.cuda:
        k = dominant("mem_chain", "long_scoreboard")
        want = marker_line(source, "STALL-mem")
        if k and (os.path.basename(k["lines"][0]["file"]) != base or k["lines"][0]["line"] != want):
            errors.append(f"mem_chain hottest line {k['lines'][0]['line']}, expected {base}:{want}")
        k = dominant("math_chain", "wait")
        want = marker_line(source, "STALL-math")
        call = marker_line(source, "STALL-math-call")
        if k and k["lines"][0]["line"] != want:
            errors.append(f"math_chain hottest line {k['lines'][0]['line']}, expected {base}:{want}")
        inl = [n["name"] for n in pcs if n["line"] == want and "inlined at" in n["name"]]
        callers = {int(m) for s in inl for m in re.findall(r"inlined at [^:]+:(\d+)", s)}
        if not inl or not callers <= {call, call + 1}:
            errors.append(f"math_chain: inlined-at callers {sorted(callers)}, expected {call} and {call + 1}")
    else:
        k = stalls.get("softmax_rows")
        lines = {marker_line(source, m) for m in ("TRITON-load", "TRITON-exp", "TRITON-store")}
        if not k:
            errors.append("no stall breakdown for softmax_rows")
        else:
            # Triton's line info has no inlined-at chains: code inlined from triton/language
            # (tl.max, tl.sum) keeps only its library line. The hottest line of the kernel's own
            # file must be a marked one.
            own = [ln for ln in k["lines"] if os.path.basename(ln["file"]) == base]
            lib = sum(ln["samples"] for ln in k["lines"] if "/triton/language/" in ln["file"])
            print(f"softmax_rows: {int(k['samples'])} samples, {lib / k['samples']:.0%} on triton/language lines")
            if not own:
                errors.append(f"softmax_rows: no line in {base}")
            else:
                hot = own[0]
                print(f"softmax_rows: hottest {base} line {hot['line']} ({hot['top_reasons'][0]['reason']})")
                if hot["line"] not in lines:
                    errors.append(f"softmax_rows hottest {base} line {hot['line']}, expected one of {sorted(lines)}")
    if errors:
        print("FAIL:\n  " + "\n  ".join(errors))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
