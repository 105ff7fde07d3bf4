"""A data loader with more threads than cores (the cpu-latency rule's thread check, issue 5)
and, with --twin, the same loader with one thread per core.

  python3 loader_threads.py [--twin] [--items N]

Each item is "decoded" by hashing a few MB (hashlib releases the GIL for large buffers, so the
threads really compete for the cores)."""
import argparse
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor

BLOB = os.urandom(4 << 20)


def load_item(i):
    h = hashlib.sha256()
    for _ in range(4):
        h.update(BLOB)  # LOAD_LINE
    return h.digest()[0] + i


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--twin", action="store_true")
    ap.add_argument("--items", type=int, default=160)
    a = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    threads = cores if a.twin else 4 * cores
    with ThreadPoolExecutor(max_workers=threads) as pool:
        total = sum(pool.map(load_item, range(a.items)))
    print(f"loader: {a.items} items on {threads} threads ({cores} cores): {total}")


if __name__ == "__main__":
    main()
