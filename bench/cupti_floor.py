#!/usr/bin/env python3
"""CUPTI's own cost on a launch-bound program, inside one process, with no Strata at all: HF GPT-2
decoding (64 tokens, batch 1) or a loop of tiny kernels, timed in phases while this script drives
libcupti through ctypes the way a tracer does (activity records for kernels, copies, sets and
synchronizations into 32 MB buffers, or the kinds --kinds names; no API callbacks). Three runs "before", then four cycles of:
  on        attached, activity kinds enabled            (CUPTI's floor for tracing)
  off       the same kinds disabled again, buffers flushed (what a closed sampling window costs
            when CUPTI stays attached)
  finalized after cuptiFinalize (CUPTI detached)
The cycles put the three states side by side, so a process that speeds up or slows down over
its life (seen on the lent machine) shifts them alike.
With --tracer kineto the same program is timed under torch.profiler instead (its own CUPTI use):
  before, then "on" inside torch.profiler.profile(CPU and CUDA activities) and "off" after it
  exits, then "on, stacks" with with_stack=True and "off" after that.
Separate processes on the lent GPU machine vary by up to x2 in speed; these ratios are taken
within one process, so they are steady. Prints each phase's median (ms per token or per step)
and its ratio to "before".
  python3 bench/cupti_floor.py [--workload gpt2-decode|tiny-kernels] [--tracer cupti|kineto]
                               [--cupti PATH] [--json OUT]"""
import argparse
import ctypes
import glob
import json
import os
import statistics
import time

import torch

KINDS = {"memcpy": 1, "memset": 2, "kernel": 10, "sync": 38}
BUF_BYTES = 32 << 20


def find_cupti(explicit):
    if explicit:
        return explicit
    tries = []
    for d in torch.__path__:
        tries += sorted(glob.glob(os.path.join(os.path.dirname(d), "nvidia", "*", "lib", "libcupti.so*")))
        tries += sorted(glob.glob(os.path.join(os.path.dirname(d), "nvidia", "cuda_cupti", "lib", "libcupti.so*")))
    tries += sorted(glob.glob("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so*"))
    tries += sorted(glob.glob("/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so*"))
    if not tries:
        raise SystemExit("cupti_floor: no libcupti found (give --cupti PATH)")
    return tries[0]


class Cupti:
    REQ = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t),
                           ctypes.POINTER(ctypes.c_size_t))
    DONE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t,
                            ctypes.c_size_t)

    def __init__(self, path, kinds):
        self.kinds = kinds
        self.lib = ctypes.CDLL(path)
        self.path = path
        self.free, self.owned = [], []
        self.bytes = 0
        self.req = self.REQ(self._request)
        self.done = self.DONE(self._complete)

    def _request(self, buf, size, max_records):
        if not self.free:
            b = ctypes.create_string_buffer(BUF_BYTES)
            self.owned.append(b)
            self.free.append(ctypes.addressof(b))
        buf[0] = self.free.pop()
        size[0] = BUF_BYTES
        max_records[0] = 0

    def _complete(self, ctx, stream, buf, size, valid):
        self.bytes += valid
        self.free.append(buf)

    def check(self, what, r):
        if r != 0:
            raise SystemExit(f"cupti_floor: {what} returned CUPTI error {r}")

    def attach(self):
        self.check("cuptiActivityRegisterCallbacks", self.lib.cuptiActivityRegisterCallbacks(self.req, self.done))

    def enable(self, on):
        f = self.lib.cuptiActivityEnable if on else self.lib.cuptiActivityDisable
        for name, k in KINDS.items():
            if name not in self.kinds:
                continue
            self.check(f"cuptiActivity{'Enable' if on else 'Disable'}({name})", f(k))

    def flush(self):
        torch.cuda.synchronize()
        self.check("cuptiActivityFlushAll", self.lib.cuptiActivityFlushAll(1))

    def finalize(self):
        self.flush()
        self.check("cuptiFinalize", self.lib.cuptiFinalize())


def gpt2_decode():
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config()).cuda().eval()
    ids = torch.randint(0, 50000, (1, 16), device="cuda")
    tokens = 64

    def run():
        with torch.no_grad():
            t0 = time.perf_counter()
            model.generate(ids, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False, pad_token_id=0)
            torch.cuda.synchronize()
            return (time.perf_counter() - t0) * 1e3 / tokens
    return run, "ms/token"


def tiny_kernels():
    y = torch.zeros(256, device="cuda")

    def run():
        nonlocal y
        t0 = time.perf_counter()
        for _ in range(20):
            for _ in range(64):
                y = y * 1.0001 + 0.5
            torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e3 / 20
    return run, "ms/step (128 launches)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", default="gpt2-decode", choices=["gpt2-decode", "tiny-kernels"])
    ap.add_argument("--tracer", default="cupti", choices=["cupti", "kineto"])
    ap.add_argument("--cupti")
    ap.add_argument("--kinds", default="kernel,memcpy,memset,sync", help="activity kinds to enable (of kernel, memcpy, memset, sync)")
    ap.add_argument("--json")
    args = ap.parse_args()
    run, unit = (gpt2_decode if args.workload == "gpt2-decode" else tiny_kernels)()
    for _ in range(2):
        run()  # warm-up: kernels loaded, caches filled
    phases = {}

    def time_phase(name, n=1):
        phases.setdefault(name, []).extend(run() for _ in range(n))

    time_phase("before", 3)
    if args.tracer == "kineto":
        kineto_phases(time_phase)
        report(args, unit, phases, "torch.profiler", 0)
        return
    cupti = Cupti(find_cupti(args.cupti), args.kinds.split(","))
    for _ in range(4):
        cupti.attach()
        cupti.enable(True)
        time_phase("on")
        cupti.enable(False)
        cupti.flush()
        time_phase("off")
        cupti.finalize()
        time_phase("finalized")
    report(args, unit, phases, cupti.path, cupti.bytes)


def kineto_phases(time_phase):
    from torch.profiler import ProfilerActivity, profile
    for stacks, label in ((False, "on"), (True, "on, stacks")):
        for _ in range(3):
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], with_stack=stacks):
                time_phase(label)
            time_phase("off" if not stacks else "off after stacks")


def report(args, unit, phases, cupti_path, activity_bytes):
    # Against "finalized" when there is one: it sits beside "on" and "off" in every cycle.
    base = statistics.median(phases.get("finalized", phases["before"]))
    result = {"workload": args.workload, "tracer": args.tracer, "kinds": args.kinds, "unit": unit, "cupti": cupti_path,
              "activity_bytes": activity_bytes,
              "phases": {k: {"median": round(statistics.median(v), 3), "over_base": round(statistics.median(v) / base, 3),
                             "each": [round(x, 3) for x in v]} for k, v in phases.items()}}
    print(f"{args.workload} ({unit}), {args.tracer} [{args.kinds}]: {cupti_path}, {activity_bytes / 1e6:.1f} MB of activity records; "
          f"ratios to {'finalized' if 'finalized' in phases else 'before'}")
    for k, v in result["phases"].items():
        print(f"  {k:11s} {v['median']:8.3f}  x{v['over_base']:.3f}   each {v['each']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
