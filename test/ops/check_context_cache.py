#!/usr/bin/env python3
"""The per-thread cache of operator contexts (a training step's outermost forward operators take
one each, for their backward) must give what a fresh context gives. Records torch_model.py with
STRATA_OP_CONTEXT_CACHE=verify (every hit is also taken in full and compared) and checks meta
"operators": contexts taken, most of them hits, none that differed. Then many_sites_program.py
(600 outermost forward operators a step, each its own call path, 6 steps): every step after the
first must find its contexts in the cache, whatever addresses the run's layout gives the keys (a
direct-mapped table kept a varying part of ResNet-50's ~180 a step). The placement checks of
check_ops.py run on the default (cache on) recording.
usage: check_context_cache.py STRATA WORKDIR TORCH_MODEL_PY"""
import os
import re
import sys

from operators_meta import record_operators_line


def contexts_of(status):
    contexts = re.search(r"contexts (\d+), [\d.]+ us each \((\d+) from the cache\)", status)
    if not contexts:
        raise SystemExit("FAIL: no contexts from the cache in meta operators")
    return int(contexts.group(1)), int(contexts.group(2))


def main():
    strata, workdir, model = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    status = record_operators_line(strata, os.path.join(workdir, "ops-context-cache.strata"),
                                   ["/usr/bin/python3", model, "2"],
                                   env=dict(os.environ, STRATA_OP_CONTEXT_CACHE="verify"))
    taken, hits = contexts_of(status)
    if taken < 100 or hits < taken // 2:
        raise SystemExit(f"FAIL: {hits} of {taken} contexts from the cache: the training loop repeats its call paths")
    if "differed" in status:
        raise SystemExit("FAIL: cached contexts differed from fresh ones")
    sites = os.path.join(os.path.dirname(os.path.abspath(__file__)), "many_sites_program.py")
    for run in range(2):  # two layouts of the address space
        taken, hits = contexts_of(record_operators_line(strata, os.path.join(workdir, "ops-many-sites.strata"),
                                                        ["/usr/bin/python3", sites, "6", "300"]))
        if taken < 3600 or hits < taken * 3 // 4:
            raise SystemExit(f"FAIL: {hits} of {taken} contexts from the cache over 6 steps of 600 call paths "
                             "(5 of 6 steps repeat them)")
    print("ok")


if __name__ == "__main__":
    main()
