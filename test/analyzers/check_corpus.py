#!/usr/bin/env python3
"""Checks `strata analyze` on one profile of the corpus against its hand-written expectations
(test/analyzers/corpus/*.json): precision (every finding is on the expected list) and recall (every
expected finding is there, at its line). Prints one line per finding and the two figures.

usage: check_corpus.py STRATA FIXTURES_DIR CORPUS_JSON [CORPUS_JSON...]
       check_corpus.py --summary STRATA FIXTURES_DIR CORPUS_JSON...   figures only, never fails

An expectation: {"rule": R, "file": BASENAME or "" (no source), "line": N, "says": [TEXT...],
"why": "what a performance engineer would say"}. A finding matches when rule, file (base name) and
line are equal and its message says every TEXT. "import": true reads a foreign trace (a Kineto trace, a
pprof or speedscope file) through `strata import` into a temporary profile first. "absent": [{"rule", "says"}] lists what must not be
said anywhere (wrong advice); a finding that says it fails the check even when its place is expected.
"""
import json
import os
import subprocess
import sys
import tempfile


def analyze(strata, profile, extra):
    run = subprocess.run([strata, "analyze", profile, "--format", "json", *extra], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"strata analyze {profile} failed ({run.returncode}): {run.stderr.strip()}")
    return json.loads(run.stdout)["findings"]


def place(f):
    loc = f["location"]
    return f["rule"], os.path.basename(loc["file"]) if loc["file"] else "", loc["line"] if loc["file"] else 0


def matches(exp, f):
    return place(f) == (exp["rule"], exp["file"], exp["line"] if exp["file"] else 0) and \
        all(t in f["message"] for t in exp.get("says", []))


def check(strata, fixtures, corpus_path):
    spec = json.load(open(corpus_path))
    profile = os.path.join(fixtures, spec["profile"])
    if spec.get("import"):
        with tempfile.TemporaryDirectory() as tmp:
            imported = os.path.join(tmp, "imported.strata")
            run = subprocess.run([strata, "import", profile, "-o", imported], capture_output=True, text=True)
            if run.returncode != 0:
                raise SystemExit(f"strata import {profile} failed ({run.returncode}): {run.stderr.strip()}")
            findings = analyze(strata, imported, spec.get("args", []))
    else:
        findings = analyze(strata, profile, spec.get("args", []))
    expected = spec["expected"]
    problems = []
    found = [False] * len(expected)
    correct = 0
    for f in findings:
        hit = [i for i, e in enumerate(expected) if matches(e, f)]
        rule, file, line = place(f)
        bad = [a for a in spec.get("absent", []) if a.get("rule", rule) == rule and
               any(t in f["message"] for t in a["says"])]
        if bad:
            problems.append(f"wrong advice in {rule} at {file}:{line}: says {bad[0]['says']}: {f['message'][:240]}")
        if hit and not bad:
            correct += 1
            for i in hit:
                found[i] = True
            print(f"  ok   {rule} {file or '(no source)'}:{line}")
        elif not hit:
            problems.append(f"unexpected {rule} at {file or '(no source)'}:{line}: {f['message'][:240]}")
    for i, e in enumerate(expected):
        if not found[i]:
            problems.append(f"missing {e['rule']} at {e['file'] or '(no source)'}:{e['line']} saying {e.get('says', [])} "
                            f"({e['why']})")
    precision = correct / len(findings) if findings else 1.0
    recall = sum(found) / len(expected) if expected else 1.0
    name = os.path.basename(corpus_path)[:-5]
    return name, len(findings), correct, len(expected), sum(found), precision, recall, problems


def main():
    args = sys.argv[1:]
    summary = args and args[0] == "--summary"
    if summary:
        args = args[1:]
    strata, fixtures, corpus = args[0], args[1], args[2:]
    failed = False
    tot = [0, 0, 0, 0]
    for c in corpus:
        name, n, correct, n_exp, n_found, precision, recall, problems = check(strata, fixtures, c)
        tot = [tot[0] + n, tot[1] + correct, tot[2] + n_exp, tot[3] + n_found]
        print(f"{name}: {n} findings, {correct} expected (precision {precision:.2f}); "
              f"{n_found} of {n_exp} expected found (recall {recall:.2f})")
        for p in problems:
            print(f"  FAIL {p}")
        failed |= bool(problems)
    if len(corpus) > 1:
        p = tot[1] / tot[0] if tot[0] else 1.0
        r = tot[3] / tot[2] if tot[2] else 1.0
        print(f"corpus: {len(corpus)} profiles, {tot[0]} findings, precision {p:.3f}, recall {r:.3f} "
              f"({tot[3]} of {tot[2]} expected findings)")
    return 0 if summary or not failed else 1


if __name__ == "__main__":
    sys.exit(main())
