"""Shared by the checkers under test/: `strata report --format json` of a profile, or a one-line
failure (the JSON is the contract of docs/report-json.md)."""
import json
import subprocess


def report_json(strata, profile, metric, *extra):
    r = subprocess.run([strata, "report", profile, "--view", "top-down", "--format", "json", "--metric", metric,
                        *extra], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"strata report failed: {r.stderr.strip()}")
    return json.loads(r.stdout)
