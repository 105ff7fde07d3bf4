#!/usr/bin/env python3
"""A torch plugin built for another torch version must be refused, not crash the program:
records torch_model.py with STRATA_TORCH_PLUGIN=PLUGIN (a build of the plugin that reports
another version) and checks the program ran to its end, the profile was written, meta
"operators" says "not recorded: ... built for torch X" and no operator frame was recorded (the
views still name operators from torch's dispatcher frames: those carry libtorch's module).

usage: check_refused.py STRATA WORKDIR PLUGIN MODEL
"""
import json
import os
import subprocess
import sys


def main():
    strata, workdir, plugin, model = sys.argv[1:5]
    os.makedirs(workdir, exist_ok=True)
    out = os.path.join(workdir, "ops-refused.strata")
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, STRATA_TORCH_PLUGIN=plugin)
    rec = subprocess.run([strata, "record", "-o", out, "--", "/usr/bin/python3", model, "1"],
                         capture_output=True, text=True, env=env)
    if rec.returncode != 0 or "steps" not in rec.stdout or not os.path.exists(out):
        raise SystemExit(f"FAIL: the program did not run through ({rec.returncode}): {rec.stderr[-2000:]}")
    rep = json.loads(subprocess.run([strata, "report", out, "--format", "json"], capture_output=True,
                                    text=True, check=True).stdout)
    status = rep["profile"]["meta"].get("operators", "")
    print(f"meta operators: {status}")
    if not status.startswith("not recorded:") or "built for torch" not in status:
        raise SystemExit("FAIL: the plugin was not refused for its version")
    # Operators the views name from torch's dispatcher frames carry their module (libtorch_cpu);
    # a recorded operator frame has none.
    if any(n["kind"] == "operator" and not n.get("module") for n in rep["nodes"]):
        raise SystemExit("FAIL: operator frames recorded by a refused plugin")
    if not any(n["kind"] == "operator" and "libtorch_cpu" in (n.get("module") or "") for n in rep["nodes"]):
        raise SystemExit("FAIL: no operator named from the dispatcher's frames in a profile without recorded operators")
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
