"""What a user sees of a profile's attribution, in numbers: the share of kernel GPU time whose
nearest Python frame is named (and the share with no Python frame at all), and the share of CPU
time under unnamed Python frames ("<?>").

  python3 bench/real_models/attribution_shares.py STRATA_CLI PROFILE [PROFILE ...]
      [--min-named SHARE] [--max-unnamed-cpu SHARE]

With the limits it exits 1 when a profile misses them (ctest guards the H100 fixtures so)."""
import argparse
import json
import subprocess
import sys

UNNAMED = "<?>"


def report(cli, path, metric):
    r = subprocess.run([cli, "report", path, "--view", "top-down", "--format", "json", "--metric", metric],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{path}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def shares(cli, path):
    doc = report(cli, path, "gpu_time")
    names = {m["name"] for m in doc["metrics"]}
    nodes = {n["id"]: n for n in doc["nodes"]}

    def nearest_python(n):
        while n["parent"] >= 0:
            n = nodes[n["parent"]]
            if n["kind"] == "python":
                return n
        return None

    out = {"profile": path}
    if "gpu_time" in names:
        total = named = no_py = 0.0
        for n in doc["nodes"]:
            if n["kind"] != "kernel":
                continue
            t = n["metrics"].get("gpu_time", {}).get("exclusive", 0)
            total += t
            p = nearest_python(n)
            if p is None:
                no_py += t
            elif p["name"] != UNNAMED:
                named += t
        if total:
            out["kernel_gpu_time_ms"] = round(total / 1e6, 3)
            out["kernel_time_named_python"] = round(named / total, 4)
            out["kernel_time_no_python"] = round(no_py / total, 4)
    cpu = "cpu_time" if "cpu_time" in names else ("wall_time" if "wall_time" in names else None)
    if cpu:
        doc = report(cli, path, cpu)
        total = sum(n["metrics"].get(cpu, {}).get("exclusive", 0) for n in doc["nodes"])
        under = 0.0
        unnamed_ids = set()
        for n in doc["nodes"]:  # preorder: a parent comes before its children
            if (n["kind"] == "python" and n["name"] == UNNAMED) or n["parent"] in unnamed_ids:
                unnamed_ids.add(n["id"])
                under += n["metrics"].get(cpu, {}).get("exclusive", 0)
        if total:
            out[f"{cpu}_under_unnamed"] = round(under / total, 4)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("profiles", nargs="+")
    ap.add_argument("--min-named", type=float, help="least share of kernel time under a named Python frame")
    ap.add_argument("--max-unnamed-cpu", type=float, help="largest share of CPU time under unnamed frames")
    args = ap.parse_args()
    ok = True
    for p in args.profiles:
        s = shares(args.cli, p)
        print(json.dumps(s))
        named = s.get("kernel_time_named_python")
        if args.min_named is not None and (named is None or named < args.min_named):
            print(f"{p}: {named} of kernel time under named Python frames, want >= {args.min_named}")
            ok = False
        unnamed = max((v for k, v in s.items() if k.endswith("_under_unnamed")), default=0.0)
        if args.max_unnamed_cpu is not None and unnamed > args.max_unnamed_cpu:
            print(f"{p}: {unnamed} of CPU time under unnamed frames, want <= {args.max_unnamed_cpu}")
            ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
