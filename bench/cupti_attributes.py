#!/usr/bin/env python3
"""Does any of CUPTI's activity attributes lower its own per-launch cost? Inside one process, a
launch-bound loop (tiny kernels or HF GPT-2 decoding, from bench/cupti_floor.py) is timed with
CUPTI finalized ("off") and with CUPTI attached and Strata's default kinds enabled ("on") under
one set of activity attributes, several cycles, so every "on" sits beside its own "off". One
set a process (CUPTI may keep an attribute past cuptiFinalize); the attribute values are read
from the installed cupti_activity.h (printed with their defaults by the "base" set), so they
are those of the CUPTI that runs.
  python3 bench/cupti_attributes.py [--workload tiny-kernels|gpt2-decode] [--set base|per-thread|...]
                                    [--cycles 5] [--json OUT]"""
import argparse
import ctypes
import glob
import json
import os
import re
import statistics

import torch

import cupti_floor

# Each set: attribute name (without CUPTI_ACTIVITY_ATTR_) -> (ctype, value). "hw-trace" calls
# cuptiActivityEnableHWTrace instead.
SETS = {
    "base": {},
    "per-thread": {"PER_THREAD_ACTIVITY_BUFFER": (ctypes.c_uint8, 1)},
    "devbuf-64m": {"DEVICE_BUFFER_SIZE": (ctypes.c_size_t, 64 << 20)},
    "devbuf-1m": {"DEVICE_BUFFER_SIZE": (ctypes.c_size_t, 1 << 20)},
    "sema-pool": {"PROFILING_SEMAPHORE_POOL_SIZE": (ctypes.c_size_t, 1 << 20),
                  "PROFILING_SEMAPHORE_PRE_ALLOCATE_VALUE": (ctypes.c_size_t, 1 << 20)},
    "no-pinned": {"MEM_ALLOCATION_TYPE_HOST_PINNED": (ctypes.c_uint8, 0)},
    "no-zeroing": {"ZEROED_OUT_ACTIVITY_BUFFER": (ctypes.c_uint8, 0)},
    "hw-trace": {},
}


def header_enum():
    roots = [os.path.dirname(d) for d in torch.__path__] + ["/usr/local/cuda", "/usr/local/cuda/extras/CUPTI",
                                                             "/usr/include"]
    for r in roots:
        for h in sorted(glob.glob(os.path.join(r, "**", "cupti_activity.h"), recursive=True)):
            text = open(h, errors="replace").read()
            m = re.search(r"typedef enum\s*\{(.*?)\}\s*CUpti_ActivityAttribute;", text, re.S)
            if not m:
                continue
            values, nxt = {}, 0
            for name, val in re.findall(r"CUPTI_ACTIVITY_ATTR_(\w+)\s*(?:=\s*([0-9a-fA-Fx]+))?\s*,", m.group(1)):
                nxt = int(val, 0) if val else nxt
                values[name] = nxt
                nxt += 1
            return h, values
    return None, {}


def set_attributes(lib, enum, s, refused):
    for name, (ctype, value) in SETS[s].items():
        if name not in enum:
            refused[name] = "not in this CUPTI's header"
            continue
        v = ctype(value)
        size = ctypes.c_size_t(ctypes.sizeof(v))
        r = lib.cuptiActivitySetAttribute(enum[name], ctypes.byref(size), ctypes.byref(v))
        if r:
            refused[name] = f"CUPTI error {r}"
    if s == "hw-trace":
        f = getattr(lib, "cuptiActivityEnableHWTrace", None)
        r = f(ctypes.c_uint8(1)) if f else "missing"
        if r:
            refused["hw-trace"] = f"cuptiActivityEnableHWTrace: {r}"


def defaults(lib, enum):
    out = {}
    for name in sorted({n for d in SETS.values() for n in d}):
        if name not in enum:
            continue
        v = ctypes.c_uint64(0)
        size = ctypes.c_size_t(8)
        r = lib.cuptiActivityGetAttribute(enum[name], ctypes.byref(size), ctypes.byref(v))
        out[name] = v.value if r == 0 else f"error {r}"
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", default="tiny-kernels", choices=["tiny-kernels", "gpt2-decode"])
    ap.add_argument("--set", default="base", choices=list(SETS))
    ap.add_argument("--cycles", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    header, enum = header_enum()
    run, unit = (cupti_floor.gpt2_decode if args.workload == "gpt2-decode" else cupti_floor.tiny_kernels)()
    for _ in range(2):
        run()
    cupti = cupti_floor.Cupti(cupti_floor.find_cupti(None), ["kernel", "memcpy", "memset"])
    if args.set == "base":
        print(f"cupti_activity.h: {header}; CUpti_ActivityAttribute: {enum}")
        print(f"defaults: {defaults(cupti.lib, enum)}")
    ratios, refused = [], {}
    for cycle in range(args.cycles):
        off = [run(), run()]
        set_attributes(cupti.lib, enum, args.set, refused)
        cupti.attach()
        cupti.enable(True)
        on = [run(), run()]
        cupti.enable(False)
        cupti.finalize()
        off += [run(), run()]
        if cycle:  # the first cycle warms the attached state up
            ratios.append(statistics.median(on) / statistics.median(off))
    print(f"{args.workload} ({unit}) {args.set:11s} CUPTI on/off x{statistics.median(ratios):.3f}  each "
          f"{[round(x, 3) for x in ratios]}  off median {statistics.median(off):.3f}"
          + (f"  refused {refused}" if refused else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"workload": args.workload, "set": args.set, "ratios": ratios, "refused": refused}, f, indent=1)


if __name__ == "__main__":
    main()
