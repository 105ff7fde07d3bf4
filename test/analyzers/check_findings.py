#!/usr/bin/env python3
"""Fails unless `strata analyze` reports (or, for a twin, does not report) a rule's finding at the
marked source line of a workload.

usage: check_findings.py STRATA PROFILE RULE SOURCE MARKER [MARKER...]   a finding of RULE must sit
                                                                         at one of the marked lines
       check_findings.py STRATA PROFILE RULE --none                      no finding of RULE at all
       check_findings.py STRATA PROFILE RULE --none-at SOURCE MARKER...  none of RULE at the marked lines
Optional before RULE: --set RULE.PARAM=VALUE (passed to strata analyze), repeatable;
--expect TEXT: the finding at the marked line must also say TEXT (a kernel, a stall reason), repeatable;
with --none / --none-at only findings that say TEXT count.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from source_markers import marker_line  # noqa: E402


def main():
    args = sys.argv[1:]
    sets = []
    while "--set" in args:
        i = args.index("--set")
        sets += ["--set", args[i + 1]]
        del args[i:i + 2]
    expect = []
    while "--expect" in args:
        i = args.index("--expect")
        expect.append(args[i + 1])
        del args[i:i + 2]
    strata, profile, rule = args[:3]
    rest = args[3:]
    run = subprocess.run([strata, "analyze", profile, "--format", "json", *sets], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"strata analyze failed ({run.returncode}): {run.stderr.strip()}")
    findings = [f for f in json.loads(run.stdout)["findings"] if f["rule"] == rule]
    if expect and rest and rest[0] in ("--none", "--none-at"):
        # A twin: only the findings that say TEXT count (a rule can find other things there).
        findings = [f for f in findings if all(t in f["message"] for t in expect)]
    where = [f"{os.path.basename(f['location']['file'])}:{f['location']['line']}" for f in findings]
    if rest == ["--none"]:
        if findings:
            print(f"FAIL: {rule} fired on the twin at {where}: {findings[0]['message']}")
            return 1
        print(f"{os.path.basename(profile)}: no {rule} finding, as expected")
        return 0
    if rest and rest[0] == "--none-at":
        source, markers = rest[1], rest[2:]
        bad = {(os.path.basename(source), marker_line(source, m)) for m in markers}
        hits = [f for f in findings if (os.path.basename(f["location"]["file"]), f["location"]["line"]) in bad]
        if hits:
            print(f"FAIL: {rule} fired on the twin at {sorted(bad)}: {hits[0]['message'][:200]}")
            return 1
        print(f"{os.path.basename(profile)}: no {rule} finding at {sorted(bad)}, as expected")
        return 0
    source, markers = rest[0], rest[1:]
    want = {(os.path.basename(source), marker_line(source, m)) for m in markers}
    hits = [f for f in findings
            if (os.path.basename(f["location"]["file"]), f["location"]["line"]) in want]
    if not hits:
        print(f"FAIL: no {rule} finding at {sorted(want)}; {rule} findings at: {where or 'none'}")
        return 1
    said = [f for f in hits if all(t in f["message"] for t in expect)]
    if not said:
        print(f"FAIL: the {rule} finding at {sorted(want)} does not say {expect}: {hits[0]['message'][:200]}")
        return 1
    hits = said
    print(f"{os.path.basename(profile)}: {rule} at {sorted(want)}: {hits[0]['message'][:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
