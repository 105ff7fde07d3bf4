#!/usr/bin/env python3
"""The record cost per kernel, calibrated on one H100 run and checked on data it was not chosen on
(bench/regions/calibration_h100.sh's two runs):

  record_cost_heldout.py RUN1 RUN2 [--strata build/bin/strata] [--markdown]

GEMMs (RUN/g<M>x<N>x<K>/pairs.json, bench/regions/record_cost_pairs.cu): each kernel (pipelined /
warp-specialized, 2 / 3 stages, 8- / 32-deep k-steps) is calibrated at one marker level on run 1's
1024^3 problem, on its own plain / instrumented pair, and replays run 2 (a fresh process) at
1024^3, 1024x1024x512 (half the k-steps) and 2048x2048x1024 (256 blocks, several a SM), at the
same level and at the other one. Truth: the plain build's clock64 span of the k-loop per lane
(mean of 5 launches); replayed: the instrumented span of the launch whose buffer was kept, less
what the form takes out for the records in it. Forms:
  start-up   the calibration kernel's cost per record (a warp alone; RUN/g1024.../calibration.bin)
  record     one cost per record, least squares over the kernel's lanes (both roles pooled)
  step       the start-up cost per record plus a cost per k-step (the other warps' markers that
             each k-step's barrier waits for)
  kind       step for the pipelined kernels, record for the warp-specialized ones
  kernel     one cost per record from the kernel's time plain and instrumented (keep-all lanes,
             median of 60 launches) over the records of a lane (strata regions --fit-kernel-ns)
Records per lane in the k-loop follow from the kernels' code (gemm_kernels.cuh), checked against
the kept buffers with the decoder.

The Gluon attention (RUN/gluon/<density>_n<tokens>.chrome_trace[.gz], test/proton/
attention_ws_gluon.py): calibrated per density (sparse, dense) on run 1 at 1024 tokens against the
loop-scope-only trace of the same run and shape (strata regions --fit-reference), checked on run 2
at 1024 and 2048 tokens. Truth: the loop-only trace's producer_loop / consumer_loop spans, less
their own enter record. Then the paced model (gluon_paced), replayed through strata regions
--start-cost."""
import argparse
import glob
import gzip
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

SMS = 132  # H100 SXM
JSON_DIR = None  # --json: where the rows go as JSON too


def save(obj, name):
    if JSON_DIR:
        json.dump(obj, open(os.path.join(JSON_DIR, name), "w"), indent=1)


# STRATA_CLI_CACHE=DIR: the CLI's output kept by its arguments, each file named in them taken by
# its name and size (not its folder: analyses unpack traces into temporary folders), so that
# several analyses of the same traces read each one once.
CACHE = os.environ.get("STRATA_CLI_CACHE")


def _cache_key(args):
    import hashlib
    parts = []
    for a in args:
        parts.append(",".join(f"{os.path.basename(x)}:{os.path.getsize(x)}" if os.path.isfile(x) else x
                              for x in a.split(",")))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def cli(strata, args):
    path = os.path.join(CACHE, _cache_key(args) + ".out") if CACHE else None
    if path and os.path.exists(path):
        return subprocess.CompletedProcess([strata] + args, 0, open(path).read(), "")
    p = subprocess.run([strata] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join([strata] + args)}: {p.stderr.strip()}")
    if path:
        os.makedirs(CACHE, exist_ok=True)
        with open(path + ".tmp", "w") as f:
            f.write(p.stdout)
        os.replace(path + ".tmp", path)
    return p


# ---- GEMMs

def loop_records(kind, level, stages, kt, role):
    """Records from the k-loop's start to its end (exclusive) per lane (gemm_kernels.cuh)."""
    per = (4 if level == 1 else 7) if kind == "pipelined" else (4 if level == 1 else 6)
    n = per * kt + 1
    if role == "producer":
        n -= 2 * stages  # its first `stages` k-steps wait on no empty slot
    return n


def lane_records(kind, level, stages, kt):
    """Records a lane writes in all: the k-loop's, its end, and the epilogue (pipelined)."""
    if kind == "pipelined":
        return loop_records(kind, level, stages, kt, "both warp groups") + 3
    return loop_records(kind, level, stages, kt, "consumers") + 1


ROLES = {"pipelined": {0: "both warp groups", 1: "both warp groups"},
         "warpspec": {0: "producer", 1: "consumers", 2: "consumers"}}


def gemm_cases(run):
    out = {}
    for path in sorted(glob.glob(os.path.join(run, "g*", "pairs.json")) + glob.glob(os.path.join(run, "g*", "pairs.json.gz"))):
        meta = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
        shape = "x".join(str(v) for v in meta["problem"])
        for c in meta["cases"]:
            per, kind = c["lanes_per_block"], c["kind"]
            nblocks = meta["blocks"]
            lanes = nblocks * per
            plain, instr = c["plain_loop_cycles"], c["instrumented_loop_cycles"]
            roles = {}
            for g in range(per):
                r = roles.setdefault(ROLES[kind][g], {"truth": [], "saved": [], "all": []})
                r["truth"] += [plain[i] for i in range(len(plain)) if (i % lanes) % per == g]
                r["saved"] += [instr[i] for i in range(lanes) if i % per == g]
                r["all"] += [instr[i] for i in range(len(instr)) if (i % lanes) % per == g]
            kt = c["k_steps"]
            for role, r in roles.items():
                r["truth"] = statistics.mean(r["truth"])
                r["saved"] = statistics.mean(r["saved"])
                r["all"] = statistics.mean(r["all"])
                r["lanes"] = nblocks * (2 if role == "consumers" else 1) if kind == "warpspec" else lanes
                r["records"] = loop_records(kind, c["level"], c["stages"], kt, role)
                r["steps"] = kt
            out[(kind, c["stages"], c["bk"], c["level"], shape)] = {
                "roles": roles, "kt": kt, "blocks": nblocks, "bps": c["blocks_per_sm"][1],
                "plain_us": statistics.median(c["plain_us"]), "keep_us": statistics.median(c["keepall_us"]),
                "circ_us": statistics.median(c["circular_us"]), "rate": meta["cycles_per_ns"],
                "lane_records": lane_records(kind, c["level"], c["stages"], kt), "name": c["name"],
                "dir": os.path.dirname(path)}
    return out


def fit_gemm(case, c0):
    """The forms' costs from one case (its own pair): {form: (per record, per step)}."""
    rs = case["roles"].values()
    d = [(r["lanes"], r["records"], r["steps"], r["all"] - r["truth"]) for r in rs]
    rec = sum(n * x * y for n, x, _, y in d) / sum(n * x * x for n, x, _, _ in d)
    step = sum(n * k * (y - c0 * x) for n, x, k, y in d) / sum(n * k * k for n, _, k, _ in d)
    waves = math.ceil(case["blocks"] / (SMS * max(1, case["bps"])))
    kern = (case["keep_us"] - case["plain_us"]) * 1e3 * case["rate"] / (case["lane_records"] * waves)
    return {"start-up": (c0, 0.0), "record": (rec, 0.0), "step": (c0, step), "kernel": (kern, 0.0)}


def replay_error(case, role, cost):
    r = case["roles"][role]
    return (r["saved"] - cost[0] * r["records"] - cost[1] * r["steps"]) / r["truth"] - 1


def check_records(strata, cases):
    """The record counts above against the decoder, on the kept buffers (records = what a cost
    of 1 cycle a record takes out of each k-loop)."""
    checked = 0
    for key, case in cases.items():
        b = os.path.join(case["dir"], case["name"] + ".bin")
        if not os.path.exists(b):
            continue
        t = json.loads(cli(strata, ["regions", b, "--format", "json", "--record-cost", "1",
                                    "--cycles-per-ns", repr(case["rate"])]).stdout)
        loop = {"pipelined": {0: 1, 1: 1}, "warpspec": {0: 10, 1: 13, 2: 13}}[key[0]]
        for iv in t["intervals"]:
            ln = t["lanes"][iv["lane"]]
            if iv["region"] != loop[ln["group"]] or "iteration" in iv:
                continue
            got = round(((iv["raw_end_ns"] - iv["raw_start_ns"]) - (iv["end_ns"] - iv["start_ns"])) * case["rate"])
            want = case["roles"][ROLES[key[0]][ln["group"]]]["records"]
            if got != want:
                raise SystemExit(f"{case['name']} lane {iv['lane']}: {got} records in the k-loop, the formula says {want}")
        checked += 1
    return checked


def calibration_cost(strata, run):
    cal = glob.glob(os.path.join(run, "g1024x1024x1024", "calibration.bin"))
    if not cal:
        return 14.7
    return json.loads(cli(strata, ["regions", cal[0], "--calibration", cal[0], "--format", "json"]).stdout)["record_cost_cycles"]


FORMS = ["start-up", "record", "step", "kind", "kernel"]


def gemm(run1, run2, strata, md):
    cal_cases, val_cases = gemm_cases(run1), gemm_cases(run2)
    if not cal_cases or not val_cases:
        print("no GEMM pairs found")
        return
    c0 = calibration_cost(strata, run1)
    n = check_records(strata, val_cases) + check_records(strata, cal_cases)
    base = "1024x1024x1024"
    print(f"\nGEMMs: start-up cost {c0:.2f} cycles/record (run 1's calibration kernel); record counts checked "
          f"against the decoder on {n} kept buffers")
    print("\nPlain / instrumented kernel time (median of each run's launches, µs; keep-all lanes / circular 256):")
    print("| kernel | stages | k-step | level | shape | run 1 plain | keep-all | circular | run 2 plain | keep-all | circular |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key in sorted(val_cases, key=lambda k: (k[4] != base, k[4], k[2], k[0], k[1], k[3])):
        a, b = cal_cases.get(key), val_cases[key]
        f = lambda c: f"{c['plain_us']:.1f} | {c['keep_us'] / c['plain_us']:.3f}× | {c['circ_us'] / c['plain_us']:.3f}×" if c else "– | – | –"
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]} | {f(a)} | {f(b)} |")
    rows = []
    for key, cal in cal_cases.items():
        kind, stages, bk, level, shape = key
        if shape != base:
            continue
        costs = fit_gemm(cal, c0)
        costs["kind"] = costs["step"] if kind == "pipelined" else costs["record"]
        for vkey, val in val_cases.items():
            if vkey[:3] != key[:3]:
                continue
            for role in val["roles"]:
                rows.append({"kernel": kind, "stages": stages, "bk": bk, "cal_level": level, "shape": vkey[4],
                             "level": vkey[3], "role": role, "costs": costs,
                             "err": {f: replay_error(val, role, costs[f]) for f in FORMS}})
    print("\nReplay error of the k-loop on run 2, calibrated on run 1 at 1024^3 (cost: cycles/record, +cycles/k-step):")
    print("| kernel | stages | k-step | calibrated at | replays | shape | lanes | " + " | ".join(FORMS) + " |")
    print("| --- | --- | --- | --- | --- | --- | --- | " + " | ".join("---" for _ in FORMS) + " |")
    for r in sorted(rows, key=lambda r: (r["bk"], r["kernel"], r["stages"], r["cal_level"], r["level"] != r["cal_level"],
                                         r["shape"] != base, r["shape"], r["role"])):
        print(f"| {r['kernel']} | {r['stages']} | {r['bk']} | level {r['cal_level']} | level {r['level']} | {r['shape']} | "
              f"{r['role']} | " + " | ".join(f"{100 * r['err'][f]:+.2f}%" for f in FORMS) + " |")
    print("\nCosts (run 1, 1024^3):")
    seen = set()
    for r in rows:
        k = (r["kernel"], r["stages"], r["bk"], r["cal_level"])
        if k in seen:
            continue
        seen.add(k)
        c = r["costs"]
        print(f"  {k[0]} s{k[1]} k{k[2]} level {k[3]}: record {c['record'][0]:.1f}, step {c['step'][1]:.0f}/k-step "
              f"(+{c0:.1f}/record), kernel time {c['kernel'][0]:.1f}")
    print("\nSummary (|error| per lane kind; within 2%):")
    for label, sel in (("same level, run 2 at 1024^3", lambda r: r["level"] == r["cal_level"] and r["shape"] == base),
                       ("same level, run 2 at the other shapes", lambda r: r["level"] == r["cal_level"] and r["shape"] != base),
                       ("other level, run 2 at 1024^3", lambda r: r["level"] != r["cal_level"] and r["shape"] == base),
                       ("other level, run 2 at the other shapes", lambda r: r["level"] != r["cal_level"] and r["shape"] != base)):
        for bk in (8, 32):
            sub = [r for r in rows if sel(r) and r["bk"] == bk]
            if not sub:
                continue
            parts = []
            for f in FORMS:
                e = [abs(r["err"][f]) for r in sub]
                parts.append(f"{f} {100 * statistics.mean(e):.2f}% mean, {100 * max(e):.2f}% max, "
                             f"{sum(x <= 0.02 for x in e)}/{len(e)}")
            print(f"  {label}, k-step {bk}: " + "; ".join(parts))
    save(rows, "gemm_heldout.json")


# ---- Gluon attention

def trace_file(run, density, shape, tmp):
    base = os.path.join(run, "gluon", f"{density}_{shape}.chrome_trace")
    if os.path.exists(base):
        return base
    if os.path.exists(base + ".gz"):
        out = os.path.join(tmp, os.path.basename(os.path.dirname(os.path.dirname(base))) + f"_{density}_{shape}.chrome_trace")
        with gzip.open(base + ".gz") as f, open(out, "wb") as o:
            o.write(f.read())
        return out
    return None


LOOPS = ("consumer_loop", "producer_loop")


def gluon_spans(strata, path, rate):
    """Per loop scope: mean raw span (cycles) and records inside it (a cost of 1 cycle a record)."""
    t = json.loads(cli(strata, ["regions", "--proton", path, "--format", "json", "--cycles-per-ns", repr(rate),
                                "--record-cost", "1"]).stdout)
    out = {}
    for iv in t["intervals"]:
        if iv.get("name") not in LOOPS:
            continue
        d = out.setdefault(iv["name"], {"span": [], "records": []})
        d["span"].append((iv["raw_end_ns"] - iv["raw_start_ns"]) * rate)
        d["records"].append(((iv["raw_end_ns"] - iv["raw_start_ns"]) - (iv["end_ns"] - iv["start_ns"])) * rate)
    issues = [i["kind"] for i in t["issues"] if i["kind"] != "no_clock_rate"]
    return {k: {"span": statistics.mean(v["span"]), "records": statistics.mean(v["records"]), "lanes": len(v["span"])}
            for k, v in out.items()}, issues


def gluon(run1, run2, strata, rate):
    tmp = tempfile.mkdtemp()
    spans, issues = {}, {}
    for ri, run in ((1, run1), (2, run2)):
        for d in ("loop", "sparse", "dense"):
            for s in ("n1024", "n2048"):
                p = trace_file(run, d, s, tmp)
                if p:
                    spans[(ri, d, s)], issues[(ri, d, s)] = gluon_spans(strata, p, rate)
    if not spans:
        print("\nno Gluon traces found")
        return
    print("\nGluon attention: loop spans (cycles, mean over warps) and records inside:")
    for k in sorted(spans):
        v = spans[k]
        print(f"  run {k[0]} {k[1]:6s} {k[2]}: " + ", ".join(f"{n} {v[n]['span']:,.0f} ({v[n]['records']:.0f} records, "
                                                              f"{v[n]['lanes']} warps)" for n in LOOPS if n in v) +
              (f"  issues: {issues[k]}" if issues[k] else ""))
    for ri, run in ((1, run1), (2, run2)):
        for s in ("n1024", "n2048"):
            t = os.path.join(run, "gluon", f"plain.times.json")
            if not os.path.exists(t):
                continue
            line = []
            for d in ("plain", "loop", "sparse", "dense"):
                p = os.path.join(run, "gluon", f"{d}.times.json")
                if os.path.exists(p):
                    m = json.load(open(p)).get("cupti_median_us", {}).get(s)
                    line.append(f"{d} {m:.2f}" if m else f"{d} –")
            print(f"  run {ri} {s} CUPTI kernel median µs: " + ", ".join(line))
    print("\n| density | calibrated on | its cost (cycles/record) | replays | role | truth (cycles) | raw error | replayed error |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    results = []
    for d in ("sparse", "dense"):
        cal, ref = spans.get((1, d, "n1024")), spans.get((1, "loop", "n1024"))
        if not cal or not ref:
            continue
        num = sum(cal[n]["lanes"] * (cal[n]["records"] - ref[n]["records"]) * (cal[n]["span"] - ref[n]["span"]) for n in LOOPS)
        den = sum(cal[n]["lanes"] * (cal[n]["records"] - ref[n]["records"]) ** 2 for n in LOOPS)
        c = num / den
        # The product's fit on the same pair (strata regions --fit-reference): the same number.
        p1, pr = trace_file(run1, d, "n1024", tmp), trace_file(run1, "loop", "n1024", tmp)
        fit = json.loads(cli(strata, ["regions", "--proton", p1, "--format", "json", "--cycles-per-ns", repr(rate),
                                      "--fit-reference", pr, "--fit-region", ",".join(LOOPS)]).stdout)["record_cost_cycles"]
        if abs(fit - c) > 0.01 * abs(c) + 0.05:
            print(f"  (the CLI's fit {fit:.2f} differs from {c:.2f})")
        for vd in ("sparse", "dense"):
            for s in ("n1024", "n2048"):
                val, truth = spans.get((2, vd, s)), spans.get((2, "loop", s))
                if not val or not truth:
                    continue
                for n in LOOPS:
                    t = truth[n]["span"] - c * truth[n]["records"]
                    raw = val[n]["span"] / t - 1
                    rep = (val[n]["span"] - c * val[n]["records"]) / t - 1
                    results.append({"density": d, "replays": vd, "shape": s, "role": n, "cost": c, "raw": raw, "err": rep})
                    print(f"| {d} | run 1, 1024 tokens | {c:.1f} (CLI fit {fit:.1f}) | run 2 {vd}, {s[1:]} tokens | {n} | "
                          f"{t:,.0f} | {100 * raw:+.2f}% | {100 * rep:+.2f}% |")
    # The kernel-time form: the CUPTI medians of run 1 at 1024 tokens, the extra time over the
    # records a consumer warp writes more (one wave: no lane runs after another on its SM).
    times = {d: json.load(open(p)).get("cupti_median_us", {}) for d in ("plain", "loop", "sparse", "dense")
             for p in [os.path.join(run1, "gluon", f"{d}.times.json")] if os.path.exists(p)}
    for d in ("sparse", "dense"):
        cal, ref = spans.get((1, d, "n1024")), spans.get((1, "loop", "n1024"))
        if not cal or not ref or "n1024" not in times.get(d, {}):
            continue
        for base in ("loop", "plain"):
            if "n1024" not in times.get(base, {}):
                continue
            extra_records = cal["consumer_loop"]["records"] - (ref["consumer_loop"]["records"] if base == "loop" else -1)
            c = (times[d]["n1024"] - times[base]["n1024"]) * 1e3 * rate / extra_records
            for s in ("n1024", "n2048"):
                val, truth = spans.get((2, d, s)), spans.get((2, "loop", s))
                if not val or not truth:
                    continue
                for n in LOOPS:
                    t = truth[n]["span"] - c * truth[n]["records"]
                    rep = (val[n]["span"] - c * val[n]["records"]) / t - 1
                    results.append({"density": d, "replays": d, "shape": s, "role": n, "cost": c, "err": rep,
                                    "form": f"kernel time vs {base}"})
                    print(f"| {d} | run 1 kernel time vs {base}, 1024 tokens | {c:.1f} | run 2 {d}, {s[1:]} tokens | {n} | "
                          f"{t:,.0f} | | {100 * rep:+.2f}% |")
    results = [dict(r, form=r.get("form", "fit to the loop-only trace")) for r in results]
    for form in sorted({r["form"] for r in results}):
        same = [abs(r["err"]) for r in results if r["density"] == r["replays"] and r["form"] == form]
        if same:
            print(f"Gluon, {form}, same density: mean |error| {100 * statistics.mean(same):.2f}%, max {100 * max(same):.2f}%, "
                  f"{sum(x <= 0.02 for x in same)}/{len(same)} within 2%")
    results_fit = [r for r in results if r["form"] == "fit to the loop-only trace"]
    same = [abs(r["err"]) for r in results_fit if r["density"] == r["replays"]]
    other = [abs(r["err"]) for r in results_fit if r["density"] != r["replays"]]
    for label, e in (("same density", same), ("other density", other)):
        if e:
            print(f"Gluon, {label}: mean |error| {100 * statistics.mean(e):.2f}%, max {100 * max(e):.2f}%, "
                  f"{sum(x <= 0.02 for x in e)}/{len(e)} within 2%")
    save(results, "gluon_heldout.json")


def gluon_paced(run1, run2, strata, rate):
    """The paced model of the warp-specialized pipeline: every iteration, both roles wait for the
    consumer (the producer waits for free slots 96% of its time), so the markers cost each role
    c x the consumer's records per iteration, plus a constant per loop and role (a_consumer,
    a_producer: what instrumenting the loop costs once). Fitted on run 1 at 1024 tokens with both
    densities (the two give c and the constants apart); replayed through the CLI (--start-cost
    on wait_kv / wait_slot and on the loop scopes, no cost per record) on run 2 at 1024 and 2048
    tokens. This form was chosen after the per-record fit above missed on run 2 (the dense
    producer +6.7%): its parameters come from run 1 alone, its form does not."""
    tmp = tempfile.mkdtemp()
    sp = {}
    for ri, run in ((1, run1), (2, run2)):
        for d in ("loop", "sparse", "dense"):
            for s in ("n1024", "n2048"):
                p = trace_file(run, d, s, tmp)
                if p:
                    sp[(ri, d, s)] = (p, gluon_spans(strata, p, rate)[0])
    need = [(1, d, "n1024") for d in ("loop", "sparse", "dense")]
    if any(k not in sp for k in need):
        return
    c, a = fit_paced(strata, run1, "gluon", rate, tmp)
    iters = {"n1024": 16, "n2048": 32}
    print(f"\nGluon, paced model (fitted by strata regions --fit-paced on run 1, 1024 tokens, both densities): {c:.2f} cycles per consumer record and iteration, "
          f"a_consumer {a['consumer_loop']:.0f}, a_producer {a['producer_loop']:.0f} cycles a loop")
    print("| replays | role | per iteration (cycles) | truth (cycles) | raw error | replayed error (strata regions --start-cost) |")
    print("| --- | --- | --- | --- | --- | --- |")
    out = []
    for ri in (1, 2):
        for d in ("sparse", "dense"):
            for s in ("n1024", "n2048"):
                if (ri, d, s) not in sp or (ri, "loop", s) not in sp:
                    continue
                path, val = sp[(ri, d, s)]
                truth = sp[(ri, "loop", s)][1]
                per_iter = c * (val["consumer_loop"]["records"] - truth["consumer_loop"]["records"]) / iters[s]
                rep = paced_loop_spans(strata, path, rate, per_iter, a)
                for n in LOOPS:
                    e = statistics.mean(rep[n]) / truth[n]["span"] - 1
                    raw = val[n]["span"] / truth[n]["span"] - 1
                    out.append({"run": ri, "density": d, "shape": s, "role": n, "err": e})
                    print(f"| run {ri} {d}, {s[1:]} tokens | {n} | {per_iter:.0f} | {truth[n]['span']:,.0f} | {100 * raw:+.2f}% | "
                          f"{100 * e:+.2f}% |")
    held = [abs(r["err"]) for r in out if r["run"] == 2]
    if held:
        print(f"Gluon, paced model on run 2 ({len(held)} loop kinds): mean |error| {100 * statistics.mean(held):.2f}%, "
              f"max {100 * max(held):.2f}%, {sum(x <= 0.02 for x in held)}/{len(held)} within 2%")
    save({"c": c, "a": a, "rows": out}, "gluon_paced.json")


def paced_loop_spans(strata, path, rate, per_iter, a):
    """The trace replayed with the paced model (per_iter cycles on each step's waits, a[loop] on
    each loop's start) through strata regions --start-cost: each loop's replayed spans (cycles)."""
    costs = (f"wait_kv={per_iter:.3f},wait_slot={per_iter:.3f},consumer_loop={a['consumer_loop']:.3f},"
             f"producer_loop={a['producer_loop']:.3f}")
    t = json.loads(cli(strata, ["regions", "--proton", path, "--format", "json", "--cycles-per-ns", repr(rate),
                                "--start-cost", costs]).stdout)
    rep = {}
    for iv in t["intervals"]:
        if iv.get("name") in LOOPS:
            rep.setdefault(iv["name"], []).append((iv["end_ns"] - iv["start_ns"]) * rate)
    return rep


def trace_in(run, sub, density, shape, tmp):
    """RUN/SUB/<density>_<shape>.chrome_trace[.gz], or None."""
    base = os.path.join(run, sub, f"{density}_{shape}.chrome_trace")
    if os.path.exists(base):
        return base
    if os.path.exists(base + ".gz"):
        out = os.path.join(tmp, f"{os.path.basename(run)}_{sub}_{density}_{shape}.chrome_trace")
        with gzip.open(base + ".gz") as f, open(out, "wb") as o:
            o.write(f.read())
        return out
    return None


def fit_paced(strata, run, sub, rate, tmp):
    """The paced model's numbers from RUN/SUB at 1024 tokens, fitted by the product (strata regions
    --fit-paced: the dense trace with the sparse one, against the loop scopes): c (cycles a
    pace-setting record and step) and the constant per loop."""
    dense, sparse, loop = (trace_in(run, sub, d, "n1024", tmp) for d in ("dense", "sparse", "loop"))
    return fit_paced_files(strata, dense, sparse, loop, rate, 16)


def fit_start_costs(strata, dense, paced, references, rate):
    """strata regions' paced fit: the start costs (cycles) by region name, from a dense trace, the
    other instrumented traces (`paced`) and loop-only traces (`references`: their mean is the truth)."""
    t = json.loads(cli(strata, ["regions", "--proton", dense, "--format", "json", "--cycles-per-ns", repr(rate),
                                "--fit-reference", ",".join(references), "--fit-region", ",".join(LOOPS), "--step-region",
                                "wait_kv,wait_slot", "--fit-paced", ",".join(paced)]).stdout)
    names = {r["id"]: r["name"] for r in t["regions"]}
    return {names[c["region"]]: c["cycles"] for c in t["start_cost_cycles"]}


def fit_paced_files(strata, dense, sparse, loop, rate, steps):
    """The paced model's numbers from one trace of each density (`steps` loop iterations)."""
    costs = fit_start_costs(strata, dense, [sparse], [loop], rate)
    d, ref = gluon_spans(strata, dense, rate)[0], gluon_spans(strata, loop, rate)[0]
    pace = (d["consumer_loop"]["records"] - ref["consumer_loop"]["records"]) / steps  # records a step
    return costs["wait_kv"] / pace, {n: costs[n] for n in LOOPS}


def replay_paced(strata, run, sub, rate, tmp, c, a, label):
    """Replays RUN/SUB's sparse and dense traces at every length with the paced model (through
    strata regions --start-cost) against its loop-only traces; prints rows, returns the errors."""
    errs = []
    shapes = sorted({os.path.basename(p).split("_")[1].split(".")[0] for p in glob.glob(os.path.join(run, sub, "loop_n*"))},
                    key=lambda x: int(x[1:]))
    for d in ("sparse", "dense"):
        for shp in shapes:
            path, lp = trace_in(run, sub, d, shp, tmp), trace_in(run, sub, "loop", shp, tmp)
            if not path or not lp:
                continue
            val, truth = gluon_spans(strata, path, rate)[0], gluon_spans(strata, lp, rate)[0]
            per_iter = c * (val["consumer_loop"]["records"] - truth["consumer_loop"]["records"]) / (int(shp[1:]) // 64)
            rep = paced_loop_spans(strata, path, rate, per_iter, a)
            for n in LOOPS:
                e = statistics.mean(rep[n]) / truth[n]["span"] - 1
                errs.append((shp, e))
                print(f"| {label} | {d}, {shp[1:]} tokens | {n} | {per_iter:.0f} | {truth[n]['span']:,.0f} | "
                      f"{100 * (val[n]['span'] / truth[n]['span'] - 1):+.2f}% | {100 * e:+.2f}% |")
    return errs


def paced_check(run1, run3, strata, rate):
    """The paced model's form on data it was not chosen on: run 3 of the same kernel (run 1's
    numbers, at 1024, 2048 and 4096 tokens), and another kernel (a 3-deep ring: its own numbers
    from run 3 at 1024 tokens, replaying 2048 and 4096)."""
    tmp = tempfile.mkdtemp()
    print("\nPaced model, checked on run 3 (its form fixed before run 3):")
    print("| model from | replays | role | per iteration | truth (cycles) | raw error | replayed error |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    c, a = fit_paced(strata, run1, "gluon", rate, tmp)
    e2 = replay_paced(strata, run3, "gluon", rate, tmp, c, a,
                      f"run 1, 2-deep ring: {c:.2f} + {a['consumer_loop']:.0f} / {a['producer_loop']:.0f}")
    results = {"ring2": {"c": c, "a": a, "errors": e2}}
    if trace_in(run3, "gluon_ring3", "loop", "n1024", tmp):
        c3, a3 = fit_paced(strata, run3, "gluon_ring3", rate, tmp)
        e3 = replay_paced(strata, run3, "gluon_ring3", rate, tmp, c3, a3,
                          f"run 3 at 1024 tokens, 3-deep ring: {c3:.2f} + {a3['consumer_loop']:.0f} / {a3['producer_loop']:.0f}")
        results["ring3"] = {"c": c3, "a": a3, "errors": e3}
    for k, r in results.items():
        # The 3-deep ring's model comes from run 3 at 1024 tokens: those rows are in-sample.
        e = [abs(x) for shp, x in r["errors"] if k == "ring2" or shp != "n1024"]
        if e:
            print(f"{k} ({'run 3, every length' if k == 'ring2' else 'run 3, lengths other than 1024'}): mean |error| "
                  f"{100 * statistics.mean(e):.2f}%, max {100 * max(e):.2f}%, {sum(x <= 0.02 for x in e)}/{len(e)} within 2%")
    save(results, "paced_check.json")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run1")
    ap.add_argument("run2")
    ap.add_argument("--strata", default=os.environ.get("STRATA", "build/bin/strata"))
    ap.add_argument("--cycles-per-ns", type=float, default=0, help="default: the GEMM runs' measured rate, else 1.98")
    ap.add_argument("--paced-check", metavar="RUN3", help="check the paced model on a third run (PARTS=paced)")
    ap.add_argument("--json", metavar="DIR", help="also write the rows as JSON into DIR")
    a = ap.parse_args()
    global JSON_DIR
    JSON_DIR = a.json
    if not a.paced_check:
        gemm(a.run1, a.run2, a.strata, True)
    rate = a.cycles_per_ns
    if rate <= 0:
        p = glob.glob(os.path.join(a.run1, "g*", "pairs.json*"))
        rate = json.load(gzip.open(p[0]) if p[0].endswith(".gz") else open(p[0]))["cycles_per_ns"] if p else 1.98
    if a.paced_check:
        paced_check(a.run1, a.paced_check, a.strata, rate)
        return
    gluon(a.run1, a.run2, a.strata, rate)
    gluon_paced(a.run1, a.run2, a.strata, rate)


if __name__ == "__main__":
    sys.exit(main())
