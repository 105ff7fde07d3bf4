#!/usr/bin/env python3
"""The per-thread cache of operator contexts (a training step's outermost forward operators take
one each, for their backward) must give what a fresh context gives. Records torch_model.py with
STRATA_OP_CONTEXT_CACHE=verify (every hit is also taken in full and compared) and checks meta
"operators": contexts taken, most of them hits, none that differed. The placement checks of
check_ops.py run on the default (cache on) recording.
usage: check_context_cache.py STRATA WORKDIR TORCH_MODEL_PY"""
import os
import re
import subprocess
import sys


def main():
    strata, workdir, model = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    out = os.path.join(workdir, "ops-context-cache.strata")
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, STRATA_OP_CONTEXT_CACHE="verify")
    rec = subprocess.run([strata, "record", "-o", out, "--", "/usr/bin/python3", model, "2"],
                         capture_output=True, text=True, env=env)
    if rec.returncode != 0 or not os.path.exists(out):
        raise SystemExit(f"record failed ({rec.returncode}): {rec.stderr.strip()[-2000:]}")
    rep = subprocess.run([strata, "report", out, "--limit", "1"], capture_output=True, text=True)
    status = next((l.split(":", 1)[1].strip() for l in rep.stdout.splitlines()
                   if l.strip().startswith("operators:")), "")
    print(f"meta operators: {status}")
    contexts = re.search(r"contexts (\d+), [\d.]+ us each \((\d+) from the cache\)", status)
    if not contexts:
        raise SystemExit("FAIL: no contexts from the cache in meta operators")
    taken, hits = int(contexts.group(1)), int(contexts.group(2))
    if taken < 100 or hits < taken // 2:
        raise SystemExit(f"FAIL: {hits} of {taken} contexts from the cache: the training loop repeats its call paths")
    if "differed" in status:
        raise SystemExit("FAIL: cached contexts differed from fresh ones")
    print("ok")


if __name__ == "__main__":
    main()
