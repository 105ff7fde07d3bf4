"""Shared driver of the Proton examples (issue 7, part 4): one command line for every example,
so that the recording script measures each kernel the same way.

  python3 EXAMPLE.py                      run once, check the result against PyTorch
  python3 EXAMPLE.py --proton OUT         record one launch with Proton's in-kernel
                                          instrumentation: OUT.chrome_trace (timeline)
  python3 EXAMPLE.py --proton OUT --hatchet   the same, Proton's default data: OUT.hatchet
  python3 EXAMPLE.py --bench plain|proton time per launch (do_bench median and a CUDA-event
                                          loop), without or with instrumentation on
  python3 EXAMPLE.py --calibrate OUT      a plain / instrumented pair for the record cost
                                          (calibrate below; examples that support it)

Scopes are `triton.profiler.language.enter_scope/exit_scope`; Triton's own DSL needs
`enable_semantic("triton")` (Proton enables only Gluon by default). Without an active
instrumentation session the scopes compile to nothing, so `--bench plain` is the kernel as is.
"""
import argparse
import json
import os
import sys
import time

import torch
import triton
import triton.profiler as proton
import triton.profiler.language as pl

pl.enable_semantic("triton")


def parse_args(description, extra=None):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--proton", metavar="OUT", help="record one launch with Proton instrumentation")
    p.add_argument("--hatchet", action="store_true", help="with --proton: Proton's default data (OUT.hatchet)")
    p.add_argument("--bench", choices=["plain", "proton"], help="time per launch, without or with instrumentation")
    p.add_argument("--reps", type=int, default=50, help="launches in the CUDA-event loop")
    p.add_argument("--granularity", default="", help="Proton granularity (warp, warp_group, cta); default Proton's")
    p.add_argument("--buffer-size", type=int, default=0, help="Proton buffer bytes; 0: Proton's default")
    p.add_argument("--buffer-type", default="", help="Proton buffer: shared (Proton's default) or global")
    p.add_argument("--calibrate", metavar="OUT", help="trace one launch per shape and time each shape (calibrate)")
    p.add_argument("--no-loop-scopes", action="store_true", help="scopes outside the main loop only")
    p.add_argument("--traces", type=int, default=1,
                   help="with --calibrate: launches traced per shape, each in its own session (OUT_<tag>_t<k>)")
    p.add_argument("--clean-l2", action="store_true",
                   help="with --calibrate: before each traced launch, read a buffer twice the L2's size and "
                        "synchronize, so that every traced launch starts from the same (clean) L2 state")
    if extra:
        extra(p)
    return p.parse_args()


def _mode(args):
    kw = {}
    if args.granularity:
        kw["granularity"] = args.granularity
    if args.buffer_size:
        kw["buffer_size"] = args.buffer_size
    if args.buffer_type:
        kw["buffer_type"] = args.buffer_type
    return proton.mode.Default(**kw) if kw else None


def _start(name, args, trace):
    kw = {"backend": "instrumentation"}
    if trace:
        kw["data"] = "trace"
    mode = _mode(args)
    if mode is not None:
        kw["mode"] = mode
    return proton.start(name, **kw)


def _time(fn, reps):
    """Median of do_bench (L2 flushed between runs) and the mean of `reps` back-to-back
    launches between two CUDA events: both in microseconds per launch."""
    med_ms = triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median")
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(reps):
        fn()
    e.record()
    torch.cuda.synchronize()
    return med_ms * 1e3, s.elapsed_time(e) * 1e3 / reps


def main(name, launch, check, args):
    """launch(): one launch of the kernel; check(): raises when the result is wrong."""
    if args.proton:
        # One launch per session: Proton names a trace's processes by kernel and CTA only, so
        # launches of one kernel in one session share their tracks.
        _start(args.proton, args, trace=not args.hatchet)
        launch()
        torch.cuda.synchronize()
        proton.finalize()
        check()
        print(f"{name}: proton {'hatchet' if args.hatchet else 'trace'} written to {args.proton}")
        return
    if args.bench:
        # The session starts before the first launch so that the kernel is compiled with the
        # instrumentation (Triton keeps compiled kernels in memory by their arguments).
        out = os.environ.get("PROTON_BENCH_DIR", "/tmp") + f"/{name}_bench"
        if args.bench == "proton":
            _start(out, args, trace=False)
        launch()  # compile outside the timing
        torch.cuda.synchronize()
        check()
        t0 = time.perf_counter()
        med_us, loop_us = _time(launch, args.reps)
        wall = time.perf_counter() - t0
        if args.bench == "proton":
            proton.finalize()
        print("BENCH " + json.dumps({"kernel": name, "mode": args.bench, "do_bench_median_us": round(med_us, 3),
                                     "event_loop_mean_us": round(loop_us, 3), "reps": args.reps,
                                     "wall_s": round(wall, 2)}))
        return
    launch()
    torch.cuda.synchronize()
    check()
    print(f"{name}: ok")


def calibrate(name, shapes, args, instrumented):
    """One side of a plain / instrumented pair for the record cost (bench/regions/
    calibration_h100.sh). shapes: [(tag, launch, check)]. Instrumented: per shape, one launch (or
    --traces K) traced in its own Proton session (OUT_<tag>[_t<k>].chrome_trace: Proton names a trace's processes by kernel
    and CTA only, so launches of one kernel in one session would share lanes); then, in one more
    session of the same mode (the same compiled kernel), `reps` timed launches per shape. Plain:
    the timed launches only. Each timed launch between two CUDA events, synchronized (with Proton
    the events also hold its per-launch buffer copy: the kernel's own time is CUPTI's, under
    Strata's runtime). A BENCH line per shape, and one with the order of all launches of the
    kernel, so that a CUPTI record of the process can be split by shape."""
    order = []
    os.makedirs(os.path.dirname(os.path.abspath(args.calibrate)), exist_ok=True)  # Proton writes into it or nowhere
    if instrumented:
        # With several traces a shape, the shapes take turns (one launch of each, then again), so
        # that a drift over the process's life reaches every shape alike.
        # The previous launch's dirty L2 lines (another length's) cost the next one when they are
        # written back: with --clean-l2 a read of twice the L2 (written once, long before) leaves
        # it holding clean lines only, the same before every traced launch.
        flush = _l2_flush(args)
        for k in range(args.traces):
            for tag, launch, check in shapes:
                out = f"{args.calibrate}_{tag}" + (f"_t{k}" if args.traces > 1 else "")
                _trace_one(out, launch, check, flush, args)
                order.append(["trace", tag, 1])
                print(f"{name} {tag}: proton trace written to {out}", flush=True)
        _start(os.environ.get("PROTON_BENCH_DIR", "/tmp") + f"/{name}_calibrate", args, trace=False)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for tag, launch, check in shapes:
        for _ in range(3):
            launch()
        torch.cuda.synchronize()
        check()
        order.append(["warmup", tag, 3])
        times = []
        for _ in range(args.reps):
            s.record()
            launch()
            e.record()
            e.synchronize()
            times.append(round(s.elapsed_time(e) * 1e3, 3))
        order.append(["timed", tag, args.reps])
        med = sorted(times)[len(times) // 2]
        print("BENCH " + json.dumps({"kernel": name, "shape": tag, "mode": "proton" if instrumented else "plain",
                                     "event_median_us": med, "event_us": times}), flush=True)
    if instrumented:
        proton.finalize()
    print("ORDER " + json.dumps(order), flush=True)


def _l2_flush(args):
    """With --clean-l2: a function that leaves the L2 holding clean lines only (the previous
    launch's dirty lines, another length's, would cost the next launch when written back): a read
    of twice the L2, written once long before. Else None."""
    if not args.clean_l2:
        return None
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    buf = torch.ones(2 * l2 // 4, dtype=torch.float32, device="cuda")

    def flush():
        buf.sum()
        torch.cuda.synchronize()
    return flush


def _trace_one(out, launch, check, flush, args):
    """One launch traced in a Proton session of its own (OUT.chrome_trace), after flush() if any."""
    if flush is not None:
        flush()
    _start(out, args, trace=True)
    launch()
    torch.cuda.synchronize()
    proton.finalize()
    check()


def calibrate_interleaved(name, shapes, densities, args):
    """Every density's kernel in one process, on the same inputs, each launch traced in its own
    Proton session: for k in range(--traces), for each shape, one launch of each density, the
    densities' order turning with k. What moves between processes (memory placement, clocks, the
    machine's state) then reaches the loop-only truth and the instrumented launches alike.
    shapes: [(tag, {density: (launch, check)})]. Traces: <--calibrate>/<density>_<tag>_t<k>."""
    os.makedirs(args.calibrate, exist_ok=True)
    flush = _l2_flush(args)
    for k in range(args.traces):
        turn = densities[k % len(densities):] + densities[:k % len(densities)]
        for tag, kernels in shapes:
            for density in turn:
                launch, check = kernels[density]
                _trace_one(os.path.join(args.calibrate, f"{density}_{tag}_t{k}"), launch, check, flush, args)
        print(f"{name}: launch {k + 1} of {args.traces} traced for {', '.join(densities)} at "
              f"{', '.join(tag for tag, _ in shapes)}", flush=True)


def attention_inputs(H, N_CTX, D):
    """q, k, v, o (H x N_CTX x D, fp16) and the softmax scale of the attention examples."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(H, N_CTX, D, device="cuda", dtype=torch.float16) for _ in range(3))
    return q, k, v, torch.empty_like(q), D ** -0.5


def check_attention(q, k, v, o, sm_scale):
    ref = torch.softmax((q.float() @ k.float().transpose(1, 2)) * sm_scale, dim=-1) @ v.float()
    torch.testing.assert_close(o.float(), ref, rtol=2e-2, atol=2e-2)


def describe_once(launch, kern, extra=""):
    """What warp specialization made of a kernel (warps, register split, shared memory): once."""
    if getattr(launch, "shown", False):
        return
    ptx = kern.asm.get("ptx", "")
    print(f"{getattr(kern.metadata, 'name', 'kernel')}: {kern.metadata.num_warps} warps in the launch, setmaxnreg {ptx.count('setmaxnreg')}x "
          f"in the PTX, shared {kern.metadata.shared} B{extra}", flush=True)
    launch.shown = True


def run_guarded(fn):
    try:
        fn()
    except Exception as e:  # one line, non-zero: the recording script goes on with the next case
        if os.environ.get("PROTON_TRACEBACK"):
            import traceback
            traceback.print_exc()
        print(f"error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", file=sys.stderr)
        sys.exit(1)
