"""What a user sees of a profile's attribution, in numbers: the share of kernel GPU time whose
nearest Python frame is named (and the share with no Python frame at all), and the share of CPU
time under unnamed Python frames ("<?>"). Also, where they apply:
  backward_kernels_on_forward_lines: of the kernel time under an autograd backward operator
      (...Backward0), the share placed under its forward's Python line (a Python frame below
      the backward operator's adopted path, i.e. not only under `loss.backward()`);
  compiled_kernels_on_model_lines: of the kernel time launched by torch.compile's generated
      code (a frame in Inductor's output), autotuning excluded, the share placed under a line of
      the model's own code: a named Python frame deeper than the last generated frame that is
      not Inductor's, Dynamo's or Triton's machinery (the launcher frames below the model line
      are such machinery);
  compile_time_kernels: kernel time launched while compiling (autotuning benchmarks);
  gpu_time_entry_under_python: kernel time whose path has the process entry (_start,
      __libc_start_main, Py_BytesMain) below a Python frame: a broken merge;
  cpu_time_truncated: CPU time in stacks marked as cut, per reason (depth limit, unwind
      failed, only the PC while the loader was busy).

  python3 bench/real_models/attribution_shares.py STRATA_CLI PROFILE [PROFILE ...]
      [--min-named SHARE] [--max-unnamed-cpu SHARE]

With the limits it exits 1 when a profile misses them (ctest guards the H100 fixtures so)."""
import argparse
import json
import re
import subprocess
import sys

UNNAMED = "<?>"
ENTRY = {"_start", "__libc_start_main", "Py_BytesMain", "Py_RunMain"}
BACKWARD = re.compile(r"Backward\d*$")
# Python frames of the backward call itself: a backward kernel only under these is not linked.
BACKWARD_CALLS = {"Tensor.backward", "backward", "_engine_run_backward"}
GENERATED = re.compile(r"torchinductor_|/inductor-cache/|^/tmp/.*/[a-z0-9]{2}/c[a-z0-9]{50,}\.py$")
MACHINERY = re.compile(r"torchinductor_|/torch/(_inductor|_dynamo|_functorch|fx|_ops\.py|_higher_order_ops|autograd/function\.py)|"
                       r"^/tmp/.*/[a-z0-9]{2}/c[a-z0-9]{50,}\.py$|<string>|<eval_with_key>")
COMPILE_TIME = re.compile(r"/torch/_inductor/")
AUTOTUNE = {"InductorBenchmarker.benchmark_gpu", "CachingAutotuner.bench.<locals>.kernel_call", "CachingAutotuner.bench",
            "CachingAutotuner.autotune_to_one_config", "CachingAutotuner.benchmark_all_configs"}


def report(cli, path, metric):
    r = subprocess.run([cli, "report", path, "--view", "top-down", "--format", "json", "--metric", metric],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{path}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def shares(cli, path, user_file=None):
    doc = report(cli, path, "gpu_time")
    names = {m["name"] for m in doc["metrics"]}
    nodes = {n["id"]: n for n in doc["nodes"]}

    def nearest_python(n):
        while n["parent"] >= 0:
            n = nodes[n["parent"]]
            if n["kind"] == "python":
                return n
        return None

    def ancestors(n):  # root first
        chain = []
        while n["parent"] >= 0:
            n = nodes[n["parent"]]
            chain.append(n)
        return chain[::-1]

    out = {"profile": path}
    if "gpu_time" in names:
        total = named = no_py = 0.0
        bw = bw_fwd = comp = comp_model = compile_time = entry_under_py = under_user = 0.0
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
            chain = ancestors(n)
            if user_file and any(a["kind"] == "python" and (a["file"] or "").endswith(user_file) for a in chain):
                under_user += t
            seen_py = False
            for a in chain:
                seen_py = seen_py or a["kind"] == "python"
                if seen_py and a["kind"] == "native" and a["name"] in ENTRY:
                    entry_under_py += t
                    break
            if any(a["kind"] == "operator" and BACKWARD.search(a["name"]) for a in chain):
                bw += t
                # Linked: its Python frames are the forward's, not the `loss.backward()` call's.
                if p is not None and not any(a["kind"] == "python" and a["name"] in BACKWARD_CALLS for a in chain):
                    bw_fwd += t
            if any(a["kind"] == "python" and COMPILE_TIME.search(a["file"] or "") and a["name"] in AUTOTUNE for a in chain):
                compile_time += t
            else:
                gen = [i for i, a in enumerate(chain) if a["kind"] == "python" and GENERATED.search(a["file"] or "")]
                if gen:
                    comp += t
                    if any(a["kind"] == "python" and a["name"] != UNNAMED and not MACHINERY.search(a["file"] or "")
                           for a in chain[gen[-1] + 1:]):
                        comp_model += t
        if total:
            out["kernel_gpu_time_ms"] = round(total / 1e6, 3)
            out["kernel_time_named_python"] = round(named / total, 4)
            out["kernel_time_no_python"] = round(no_py / total, 4)
            out["gpu_time_entry_under_python"] = round(entry_under_py / total, 4)
            if user_file:
                out["kernel_time_under_user_file"] = round(under_user / total, 4)
            if bw:
                out["backward_kernels_on_forward_lines"] = round(bw_fwd / bw, 4)
            if comp:
                out["compiled_kernels_on_model_lines"] = round(comp_model / comp, 4)
            if compile_time:
                out["compile_time_kernels"] = round(compile_time / total, 4)
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
        cut_ids = {}
        cut = {}
        for n in doc["nodes"]:
            reason = n["name"][len("<stack truncated"):].strip(": >") if n["name"].startswith("<stack truncated") else None
            reason = reason or cut_ids.get(n["parent"])
            if reason:
                cut_ids[n["id"]] = reason
                cut[reason] = cut.get(reason, 0) + n["metrics"].get(cpu, {}).get("exclusive", 0)
        if total:
            out[f"{cpu}_under_unnamed"] = round(under / total, 4)
            out[f"{cpu}_truncated"] = {k: round(v / total, 4) for k, v in sorted(cut.items())}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("profiles", nargs="+")
    ap.add_argument("--min-named", type=float, help="least share of kernel time under a named Python frame")
    ap.add_argument("--max-unnamed-cpu", type=float, help="largest share of CPU time under unnamed frames")
    ap.add_argument("--user-file", help="report the share of kernel time with a Python frame of this file above it")
    ap.add_argument("--min-user-file-share", type=float, help="least share of kernel time under --user-file")
    ap.add_argument("--min-backward-linked", type=float, help="least share of backward kernel time on forward lines")
    ap.add_argument("--max-entry-under-python", type=float, help="largest share of kernel time with the process entry under Python")
    ap.add_argument("--min-compiled-on-model-lines", type=float, help="least share of compiled kernel time on model lines")
    ap.add_argument("--max-depth-cut-cpu", type=float, help="largest share of CPU time in stacks cut at the depth limit")
    args = ap.parse_args()
    ok = True
    for p in args.profiles:
        s = shares(args.cli, p, args.user_file)
        print(json.dumps(s))
        named = s.get("kernel_time_named_python")
        if args.min_named is not None and (named is None or named < args.min_named):
            print(f"{p}: {named} of kernel time under named Python frames, want >= {args.min_named}")
            ok = False
        for key, limit, least in (("backward_kernels_on_forward_lines", args.min_backward_linked, True),
                                   ("kernel_time_under_user_file", args.min_user_file_share, True),
                                   ("compiled_kernels_on_model_lines", args.min_compiled_on_model_lines, True),
                                   ("gpu_time_entry_under_python", args.max_entry_under_python, False)):
            if limit is None:
                continue
            v = s.get(key)
            if v is None or (v < limit if least else v > limit):
                print(f"{p}: {key} = {v}, want {'>=' if least else '<='} {limit}")
                ok = False
        depth_cut = max((v.get("depth limit", 0.0) for k, v in s.items() if k.endswith("_truncated")), default=0.0)
        if args.max_depth_cut_cpu is not None and depth_cut > args.max_depth_cut_cpu:
            print(f"{p}: {depth_cut} of CPU time in stacks cut at the depth limit, want <= {args.max_depth_cut_cpu}")
            ok = False
        unnamed = max((v for k, v in s.items() if k.endswith("_under_unnamed")), default=0.0)
        if args.max_unnamed_cpu is not None and unnamed > args.max_unnamed_cpu:
            print(f"{p}: {unnamed} of CPU time under unnamed frames, want <= {args.max_unnamed_cpu}")
            ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
