#!/usr/bin/env python3
"""The per-thread cache of operator contexts (a training step's outermost forward operators take
one each, for their backward) must give what a fresh context gives. Records torch_model.py with
STRATA_OP_CONTEXT_CACHE=verify (every hit is also taken in full and compared) and checks meta
"operators": contexts taken, most of them hits, none that differed. The placement checks of
check_ops.py run on the default (cache on) recording.
usage: check_context_cache.py STRATA WORKDIR TORCH_MODEL_PY"""
import os
import re
import sys

from operators_meta import record_operators_line


def main():
    strata, workdir, model = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    status = record_operators_line(strata, os.path.join(workdir, "ops-context-cache.strata"),
                                   ["/usr/bin/python3", model, "2"],
                                   env=dict(os.environ, STRATA_OP_CONTEXT_CACHE="verify"))
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
