"""Compares what two runtimes put into the profile of the same GPU program, leaving out what
varies from run to run (times, CPU samples): per GPU call path (Python lines, operators, API
calls, kernels, copies, regions, pc frames), how many activity records landed there, and the
profile's meta lines about GPU collection. Used to check that a refactoring of the runtime's GPU
collection changed nothing a user sees (test/gpu/compare_runtimes_h100.sh records the pairs).

  python3 test/gpu/compare_profiles.py STRATA_CLI A.strata B.strata [--tolerance 0.02]

Prints the differing paths and exits 1 when the two differ beyond the tolerance (the share of
GPU records whose path differs)."""
import argparse
import collections
import json
import subprocess
import sys

GPU_KINDS = {"gpu_api", "kernel", "pc", "region"}
KEPT_KINDS = {"python", "operator"} | GPU_KINDS
META_KEYS = ("gpu", "regions", "pc_sampling", "operators", "python")
COUNT_METRICS = ("gpu_time", "memcpy_bytes", "region_time", "pc_samples")


def report(cli, path):
    r = subprocess.run([cli, "report", path, "--view", "top-down", "--format", "json", "--metric", "gpu_time"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{path}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def gpu_paths(doc):
    """path (kept frames only, from the root) -> metric -> event count at that path."""
    paths = {}
    out = collections.defaultdict(collections.Counter)
    for n in doc["nodes"]:
        parent = paths.get(n["parent"], ())
        if n["kind"] in KEPT_KINDS:
            line = n["line"] if n["kind"] == "python" else 0
            parent = parent + (f'{n["kind"]}:{n["name"]}:{line}',)
        paths[n["id"]] = parent
        if not any(p.split(":", 1)[0] in GPU_KINDS for p in parent):
            continue
        for m in COUNT_METRICS:
            c = n["metrics"].get(m, {}).get("count", 0)
            if c:
                out[parent][m] += c
    return out


def meta_shape(doc):
    meta = doc["profile"]["meta"]
    # The words only: numbers (counts, times) differ from run to run.
    words = lambda v: (w.replace("rt-A", "rt-X").replace("rt-B", "rt-X") for w in v.replace(",", " ").split())
    return {k: " ".join(w for w in words(meta[k]) if not any(ch.isdigit() for ch in w)) for k in META_KEYS if k in meta}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--tolerance", type=float, default=0.02)
    args = ap.parse_args()
    da, db = report(args.cli, args.a), report(args.cli, args.b)
    pa, pb = gpu_paths(da), gpu_paths(db)
    total = sum(sum(c.values()) for c in pa.values()) or 1
    diff = 0
    for path in sorted(set(pa) | set(pb)):
        for m in COUNT_METRICS:
            x, y = pa.get(path, {}).get(m, 0), pb.get(path, {}).get(m, 0)
            if x != y:
                diff += abs(x - y)
                print(f"  {m}: {x} -> {y}  at {' > '.join(path[-4:])}")
    ma, mb = meta_shape(da), meta_shape(db)
    meta_ok = ma == mb
    if not meta_ok:
        print(f"  meta differs:\n    {ma}\n    {mb}")
    share = diff / total
    print(f"{args.a} vs {args.b}: {len(pa)} / {len(pb)} GPU paths, {total} records in A, "
          f"{share:.2%} differ, meta {'same' if meta_ok else 'differs'}")
    sys.exit(0 if share <= args.tolerance and meta_ok else 1)


if __name__ == "__main__":
    main()
