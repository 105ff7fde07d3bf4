#!/usr/bin/env python3
"""Checks JAX attribution in a profile of test/gpu/jax_step.py (recorded on the H100 with XLA's
HLO mapping, issue 3 item 4): the jitted step's XLA kernels must sit under the Python lines XLA
recorded for their HLO ops, i.e. <module> > main:JAX_CALL_LINE > step:(JAX_DOT_LINE |
JAX_GELU_LINE | JAX_REDUCE_LINE) > operator "jit(step)/..." > gpu_api > kernel. Prints the share
of XLA kernel GPU time that has a Python line.

usage: check_jax.py STRATA SOURCE --profile FILE
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from source_markers import marker_line  # noqa: E402

FUSIONS = ("input_reduce_fusion", "input_reduce_fusion_1")  # the step's fusions (XLA names)


def main():
    if len(sys.argv) != 5 or sys.argv[3] != "--profile":
        raise SystemExit(__doc__)
    strata, source, profile = sys.argv[1], sys.argv[2], sys.argv[4]
    base = os.path.basename(source)
    call = marker_line(source, "JAX_CALL_LINE")
    step_lines = {marker_line(source, m): m for m in ("JAX_DOT_LINE", "JAX_GELU_LINE", "JAX_REDUCE_LINE")}
    rep = subprocess.run([strata, "report", profile, "--format", "json", "--limit", "0", "--metric", "gpu_time"],
                         capture_output=True, text=True, check=True)
    report = json.loads(rep.stdout)
    meta = report["profile"]["meta"]
    nodes = {n["id"]: n for n in report["nodes"]}

    def chain(node):
        out = []
        p = node["parent"]
        while p not in (None, -1):
            out.append(nodes[p])
            p = nodes[p]["parent"]
        return out  # leaf side first

    def gpu(n):
        return n["metrics"].get("gpu_time", {}).get("exclusive", 0.0)

    def py_here(n, line=None):
        return n["kind"] == "python" and os.path.basename(n["file"] or "") == base and (line is None or n["line"] == line)

    failures = []
    kernels = [n for n in nodes.values() if n["kind"] == "kernel" and gpu(n) > 0]
    # XLA kernels: everything launched by the XLA runtime but copies / sets (module-less frames
    # of xla_cuda_plugin / libcublasLt / libjax_common on the path, or an XLA operator frame).
    def is_xla(n, anc):
        if n["name"].startswith("memcpy") or n["name"] == "memset":
            return False
        return any(a["kind"] == "operator" and a["name"].startswith("jit(") for a in anc) or any(
            a["kind"] == "native" and any(m in (a["module"] or "") for m in ("xla_cuda_plugin", "libjax_common", "libcublasLt"))
            for a in anc)

    total = with_line = step_total = step_ok = gemm_total = gemm_dot = 0.0
    placed = {}
    for n in kernels:
        anc = chain(n)
        if not is_xla(n, anc):
            continue
        t = gpu(n)
        total += t
        if any(a["kind"] == "python" for a in anc):
            with_line += t
        ops = [a["name"] for a in anc if a["kind"] == "operator"]
        lines = [a["line"] for a in anc if py_here(a)]
        under_call = any(py_here(a, call) for a in anc)
        step_line = next((l for l in lines if l in step_lines), None)
        if n["name"] in FUSIONS:
            step_total += t
            if under_call and step_line is not None and any(o.startswith("jit(step)/") for o in ops):
                step_ok += t
                placed.setdefault(n["name"], set()).add((step_lines[step_line], ops[0] if ops else ""))
        elif "gemm" in n["name"] and "xmma" in n["name"]:
            gemm_total += t
            if under_call and step_line == marker_line(source, "JAX_DOT_LINE"):
                gemm_dot += t
    print(f"meta gpu: {meta.get('gpu', '?')}")
    print(f"XLA kernel GPU time {total / 1e6:.3f} ms, with a Python line {100 * with_line / max(total, 1):.1f}%")
    print(f"step fusions {step_total / 1e6:.3f} ms, under main:{call} > step marker line + jit(step) op "
          f"{100 * step_ok / max(step_total, 1):.1f}%: {sorted((k, sorted(v)) for k, v in placed.items())}")
    print(f"cuBLAS GEMMs {gemm_total / 1e6:.3f} ms, under JAX_DOT_LINE {100 * gemm_dot / max(gemm_total, 1):.1f}%")
    if step_total <= 0:
        failures.append("no input_reduce_fusion kernels in the profile")
    elif step_ok / step_total < 0.9:
        failures.append(f"only {100 * step_ok / step_total:.1f}% of the step's fusion time sits under its Python lines")
    if gemm_total > 0 and gemm_dot / gemm_total < 0.5:
        failures.append(f"only {100 * gemm_dot / gemm_total:.1f}% of cuBLAS GEMM time under JAX_DOT_LINE")
    if "XLA HLO:" not in meta.get("gpu", ""):
        failures.append("meta gpu has no 'XLA HLO:' part (HLO mapping not active)")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
