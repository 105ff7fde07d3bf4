#!/usr/bin/env python3
"""What a case study measures, read from the base run's findings (`strata analyze --format json`):
the typed fields of the finding that advises the change, never its message.

usage: case_study_plan.py workers FINDINGS_JSON     the data-loader finding's advised num_workers
                                                     (its cpu_cores evidence); nothing when absent
       case_study_plan.py precisions FINDINGS_JSON  "tf32 bf16" when a GPU hotspot is the library's
                                                     matrix multiplies (the advice for fp32 GEMMs);
                                                     nothing when absent
       case_study_plan.py compile-mode FINDINGS_JSON "reduce-overhead" when kernel-fusion finds the
                                                     step launch-bound (its advice for code that
                                                     already runs compiled kernels: CUDA graphs)
"""
import json
import sys


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("workers", "precisions", "compile-mode"):
        sys.exit(__doc__.strip())
    try:
        findings = json.load(open(sys.argv[2]))["findings"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"case_study_plan.py: cannot read findings from {sys.argv[2]}: {e}")
    if sys.argv[1] == "workers":
        for f in findings:
            if f["rule"] == "data-loader":
                cores = [e["value"] for e in f["evidence"] if e["name"] == "cpu_cores"]
                if cores:
                    print(int(cores[0]))
                    return
        return
    if sys.argv[1] == "compile-mode":
        if any(f["rule"] == "kernel-fusion" and f["cause"] == "launch-bound" for f in findings):
            print("reduce-overhead")
        return
    if any(f["rule"] == "hotspot" and f["cause"] == "gpu_time:cuBLAS/CUTLASS matrix multiply" for f in findings):
        print("tf32 bf16")


if __name__ == "__main__":
    main()
