#!/usr/bin/env python3
"""PC sampling at scale: torchvision ResNet-50 training (batch 64, random data) with and without
PC sampling, configurations alternating within each round, several rounds. Per configuration:
median step time, peak RSS of the process (wait4's ru_maxrss: the whole life, profile writing
included), profile size, and the profile's meta pc_sampling line (samples, cubins loaded, code
kept). Configurations:
  none           no profiler
  strata         the runtime, no PC sampling
  pcs floor      PC sampling with the least of Strata around it (no API callbacks, no operator
                 plugin: samples are taken only at exit), as near CUPTI's own cost as the runtime goes
  pcs            PC sampling as users run it (STRATA_PC_SAMPLING=continuous; CUPTI's hardware
                 buffer 64 MB, the heaviest 4096 (kernel path, instruction) pairs as pc frames)
  pcs hw128/256  the same with a 128 / 256 MB hardware buffer
  pcs hw512      the same with CUPTI's own hardware buffer, 512 MB
                 (STRATA_PC_SAMPLING_HW_BUFFER_MB=0): how much of the memory is that buffer, and
                 whether 64 MB loses samples (the pc_sampling line says so)
  pcs all        the same with a pc frame for every pair (STRATA_PC_SAMPLING_DETAIL=0): the
                 profile's size without the limit (first round only)
  pcs whole      the same keeping whole cubins (STRATA_PC_SAMPLING_CUBINS=whole): the profile's
                 size before trimming (first round only)
After the last round the trimmed cubins of the "pcs" profile are checked with nvdisasm when it is
found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, pip's nvidia/cuda_nvdisasm): every cubin must
disassemble and list its sampled functions with instructions. The goals (issue: profile <= 10 MB,
peak RSS <= 1.10 x strata without PC sampling, no samples lost, every cubin disassembled) are
printed last, met or not.
Runs on the GPU machine (LD_LIBRARY_PATH must reach libunwind):
  python3 bench/pc_sampling_scale.py --runtime .device/pcs/libstrata_runtime.so --out DIR
  [--rounds 3] [--steps 20] [--configs none,strata,pcs-floor,pcs,pcs-hw512,pcs-all,pcs-whole]"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NO_OPS = {"STRATA_TORCH_BUILD": "0", "STRATA_TORCH_PLUGIN": "/nonexistent"}
CONFIGS = {
    "none": None,
    "strata": {},
    "pcs-floor": {"STRATA_PC_SAMPLING": "continuous", "STRATA_GPU_CALLBACKS": "none", **NO_OPS},
    "pcs": {"STRATA_PC_SAMPLING": "continuous"},
    "pcs-hw512": {"STRATA_PC_SAMPLING": "continuous", "STRATA_PC_SAMPLING_HW_BUFFER_MB": "0"},
    "pcs-hw128": {"STRATA_PC_SAMPLING": "continuous", "STRATA_PC_SAMPLING_HW_BUFFER_MB": "128"},
    "pcs-hw256": {"STRATA_PC_SAMPLING": "continuous", "STRATA_PC_SAMPLING_HW_BUFFER_MB": "256"},
    "pcs-all": {"STRATA_PC_SAMPLING": "continuous", "STRATA_PC_SAMPLING_DETAIL": "0"},
    "pcs-whole": {"STRATA_PC_SAMPLING": "continuous", "STRATA_PC_SAMPLING_CUBINS": "whole"},
}
ONCE = {"pcs-all", "pcs-whole"}  # sizes only: run in the first round only
SECTION_NAMES = {4: "frames", 5: "nodes", 7: "node_metrics", 8: "blobs (code)"}


def child(steps, batch, warmup):
    """The workload: prints one JSON line with the median step time and this process's peak RSS."""
    import resource
    import torch
    import torchvision
    model = torchvision.models.resnet50().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(batch, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (batch,), device="cuda")
    times = []
    for i in range(warmup + steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    print(json.dumps({"median_step_ms": statistics.median(times) * 1e3, "loss": float(loss),
                      "rss_steps_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "rss_by_mapping_mb": rss_by_mapping()}), flush=True)


def rss_by_mapping():
    """This process's resident memory now, by what is mapped (a library's file name, or anonymous
    memory: heap and private mappings), from /proc/self/smaps: which part grows under a profiler."""
    sums, name = {}, "?"
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if not head:
                continue
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                path = head[5] if len(head) > 5 else ""
                # /dev/nvidia* mappings are the driver's (PC sampling's hardware buffer among them)
                name = "[device]" if path.startswith("/dev/") else os.path.basename(path) if path.startswith("/") else (path or "[anon]")
            elif head[0] == "Rss:":
                sums[name] = sums.get(name, 0) + int(head[1])
    top = sorted(sums.items(), key=lambda kv: -kv[1])[:40]
    return {k: round(v / 1024, 1) for k, v in top}


# --- the profile: meta and blobs (docs/profile-format.md) ------------------------------------

def sections(data):
    if data[:8] != b"STRATAPF":
        raise SystemExit("not a Strata profile")
    table, count = struct.unpack_from("<QI", data, 24)
    out = {}
    for i in range(count):
        kind, _, off, size, n = struct.unpack_from("<IIQQQ", data, table + 32 * i)
        out[kind] = (off, size, n)
    return out


def strings(data, off):
    count, = struct.unpack_from("<I", data, off)
    offs = struct.unpack_from(f"<{count + 1}I", data, off + 8)
    blob = off + 8 + 4 * (count + 1)
    return [data[blob + offs[i]:blob + offs[i + 1]].decode("utf-8", "replace") for i in range(count)]


def read_profile(path):
    """(meta dict, [(module build id, cubin bytes)], sampled function names per build id)."""
    data = open(path, "rb").read()
    secs = sections(data)
    strs = strings(data, secs[1][0])
    meta = {}
    if 2 in secs:
        o, _, n = secs[2]
        for i in range(n):
            k, v = struct.unpack_from("<II", data, o + 8 * i)
            meta[strs[k]] = strs[v]
    mods = []
    if 3 in secs:
        o, _, n = secs[3]
        for i in range(n):
            p, b = struct.unpack_from("<II", data, o + 32 * i)
            mods.append(strs[b])
    cubins = []
    if 8 in secs:
        o, _, _ = secs[8]
        count, = struct.unpack_from("<I", data, o)
        base = o + 8 + 32 * count
        for i in range(count):
            module, kind, off, size, _ = struct.unpack_from("<IIQQQ", data, o + 8 + 32 * i)
            if kind == 1:
                cubins.append((mods[module] if module < len(mods) else str(module), data[base + off:base + off + size]))
    return meta, cubins


def find_nvdisasm():
    cands = [shutil.which("nvdisasm") or "", os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "bin", "nvdisasm"),
             "/usr/local/cuda/bin/nvdisasm"]
    for site in sys.path:
        cands += glob.glob(os.path.join(site, "nvidia", "cuda_nvdisasm", "bin", "nvdisasm"))
        cands += glob.glob(os.path.join(site, "nvidia", "cu*", "bin", "nvdisasm"))
    return next((c for c in cands if c and os.access(c, os.X_OK)), "")


def check_listings(profile, workdir):
    """nvdisasm -c -gi on each cubin the profile carries: failures, functions listed with
    instructions (the sampled ones and their callees), instructions."""
    nvdisasm = find_nvdisasm()
    _, cubins = read_profile(profile)
    if not nvdisasm:
        return {"nvdisasm": "not found", "cubins": len(cubins)}
    os.makedirs(workdir, exist_ok=True)
    failed, functions, stubs, instructions, first_error = 0, 0, 0, 0, ""
    for name, blob in cubins:
        path = os.path.join(workdir, name + ".cubin")
        with open(path, "wb") as f:
            f.write(blob)
        r = subprocess.run([nvdisasm, "-c", "-gi", path], capture_output=True, text=True)
        if r.returncode != 0 or not r.stdout:
            failed += 1
            first_error = first_error or f"{name}: exit {r.returncode}: {r.stderr.strip()[:300]}"
            continue
        with_code, current = set(), None
        for line in r.stdout.splitlines():
            m = re.match(r"^\s*\.text\.(\S+?):\s*$", line)
            if m:
                current = m.group(1)
            elif current and re.match(r"^\s*/\*[0-9a-f]{4,}\*/", line):
                with_code.add(current)
                instructions += 1
        # "$d<k>": a dropped function's one-instruction stub (native/cubin_trim), listed apart.
        functions += sum(1 for f in with_code if not f.startswith("$d"))
        stubs += sum(1 for f in with_code if f.startswith("$d"))
    return {"nvdisasm": nvdisasm, "cubins": len(cubins), "failed": failed, "functions_with_code": functions,
            "dropped_function_stubs": stubs, "instructions_listed": instructions, "first_error": first_error}


def run(cmd, env, log):
    """Runs cmd (output to log.out / log.err); (its JSON line, peak RSS in MB over its whole
    life, wall seconds). wait4 gives this child's own rusage."""
    t0 = time.perf_counter()
    with open(log + ".out", "w") as fo, open(log + ".err", "w") as fe:
        p = subprocess.Popen(cmd, env=env, stdout=fo, stderr=fe)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    out, err = open(log + ".out").read(), open(log + ".err").read()
    line = next((l for l in out.splitlines() if l.startswith("{")), None)
    if p.returncode != 0 or not line:
        raise SystemExit(f"failed ({p.returncode}): {out[-300:]} {err[-1500:]}")
    return json.loads(line), ru.ru_maxrss / 1024, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--runtime")
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--configs", default="none,strata,pcs-floor,pcs,pcs-hw512,pcs-all,pcs-whole")
    args = ap.parse_args()
    if args.child:
        child(args.steps, args.batch, args.warmup)
        return
    if not args.runtime or not args.out:
        raise SystemExit("usage: pc_sampling_scale.py --runtime LIBSTRATA_RUNTIME --out DIR")
    runtime = os.path.abspath(args.runtime)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    configs = args.configs.split(",")
    for c in configs:
        if c not in CONFIGS:
            raise SystemExit(f"unknown configuration {c} ({', '.join(CONFIGS)})")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--steps", str(args.steps),
           "--warmup", str(args.warmup), "--batch", str(args.batch)]

    def env_of(name):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        extra = CONFIGS[name]
        if extra is not None:
            env.update(extra)
            env["LD_PRELOAD"] = runtime
            env["STRATA_OUTPUT"] = os.path.join(out, f"resnet50-{name}.strata")
        return env

    # One untimed run with the runtime first: it builds the operator plugin for this torch.
    run(cmd, env_of("strata"), os.path.join(out, "prime"))
    rows = {c: [] for c in configs}
    for r in range(args.rounds):
        for c in configs:
            if c in ONCE and r > 0:
                continue
            res, rss, wall = run(cmd, env_of(c), os.path.join(out, f"run-{r}-{c}"))
            row = {"step_ms": round(res["median_step_ms"], 2), "peak_rss_mb": round(rss, 1),
                   "rss_at_last_step_mb": round(res["rss_steps_mb"], 1), "wall_s": round(wall, 1),
                   "rss_by_mapping_mb": res.get("rss_by_mapping_mb", {})}
            if CONFIGS[c] is not None:
                path = env_of(c)["STRATA_OUTPUT"]
                row["profile_mb"] = round(os.path.getsize(path) / 1e6, 3)
                secs = sections(open(path, "rb").read())
                row["profile_sections_mb"] = {n: round(secs[k][1] / 1e6, 3) for k, n in SECTION_NAMES.items() if k in secs}
                meta, _ = read_profile(path)
                row["pc_sampling"] = meta.get("pc_sampling", "")
            rows[c].append(row)
            print(f"round {r} {c}: " + json.dumps({k: v for k, v in row.items() if k != "rss_by_mapping_mb"}), flush=True)

    med = lambda c, k: statistics.median(x[k] for x in rows[c])
    base = "none" if "none" in rows else configs[0]
    summary = {}
    for c in configs:
        s = {"step_ms": round(med(c, "step_ms"), 2), "peak_rss_mb": round(med(c, "peak_rss_mb"), 1),
             "step_ratio": round(med(c, "step_ms") / med(base, "step_ms"), 3),
             "rss_ratio": round(med(c, "peak_rss_mb") / med(base, "peak_rss_mb"), 3)}
        if "profile_mb" in rows[c][0]:
            s["profile_mb"] = round(med(c, "profile_mb"), 3)
            s["profile_sections_mb"] = rows[c][-1]["profile_sections_mb"]
            s["pc_sampling"] = rows[c][-1]["pc_sampling"]
        summary[c] = s
    for c in ("pcs", "pcs-floor"):
        if c in summary and "strata" in summary:
            summary[c]["rss_over_strata"] = round(summary[c]["peak_rss_mb"] / summary["strata"]["peak_rss_mb"], 3)
    if "pcs" in configs:
        summary["pcs"]["listings"] = check_listings(env_of("pcs")["STRATA_OUTPUT"], os.path.join(out, "pcs-cubins"))
    print(json.dumps({"summary": summary}, indent=1), flush=True)
    print(f"{'config':10} {'step ms':>9} {'x none':>7} {'peak RSS MB':>12} {'x none':>7} {'profile MB':>11}")
    for c, v in summary.items():
        print(f"{c:10} {v['step_ms']:9.2f} {v['step_ratio']:7.3f} {v['peak_rss_mb']:12.1f} {v['rss_ratio']:7.3f} "
              f"{v.get('profile_mb', 0):11.3f}")
    goals = {}
    if "pcs" in summary:
        p = summary["pcs"]
        goals["profile <= 10 MB"] = p["profile_mb"] <= 10
        if "rss_over_strata" in p:
            goals["peak RSS <= 1.10 x strata"] = p["rss_over_strata"] <= 1.10
        goals["no samples lost"] = all("samples lost" not in x["pc_sampling"] and " 0 dropped" in x["pc_sampling"]
                                       for x in rows["pcs"])
        l = p.get("listings", {})
        if "failed" in l:
            goals["nvdisasm reads every cubin"] = l["failed"] == 0
        else:
            print("goal nvdisasm reads every cubin: not checked (no nvdisasm found)")
    for g, ok in goals.items():
        print(f"goal {g}: {'met' if ok else 'NOT met'}")
    # Where the resident memory grew, by mapping, against "none" (each configuration's last run).
    if "none" in rows and "rss_by_mapping_mb" in rows["none"][-1]:
        base_map = rows["none"][-1]["rss_by_mapping_mb"]
        for c in configs:
            if c == "none" or "rss_by_mapping_mb" not in rows[c][-1]:
                continue
            m = rows[c][-1]["rss_by_mapping_mb"]
            diff = {k: round(m.get(k, 0) - base_map.get(k, 0), 1) for k in set(m) | set(base_map)}
            big = sorted(((k, d) for k, d in diff.items() if abs(d) >= 2), key=lambda kv: -abs(kv[1]))
            print(f"rss growth of {c} over none at the last step, by mapping (MB): total {sum(diff.values()):.1f}; "
                  + ", ".join(f"{k} {d:+.1f}" for k, d in big))
    with open(os.path.join(out, "pc_sampling_scale.json"), "w") as f:
        json.dump({"args": vars(args), "runs": rows, "summary": summary, "goals": goals}, f, indent=1)


if __name__ == "__main__":
    main()
