"""The workloads of bench/profiler_comparison.py, one process each, timed under one profiler.
usage: comparison_workloads.py WORKLOAD PROFILER STEPS TRACE_DIR [PAIRS]
WORKLOAD: resnet50-train | gpt2-train | gpt2-decode | tiny-kernels | jax-train
PROFILER: none (also what Strata runs under: it is preloaded by the parent) | torch-profiler |
          torch-profiler-stacks | proton | ab | ab-cupti | ab-kineto | ab-kineto-stacks
Runs warm-up steps, then STEPS timed steps with the profiler active from the first warm-up step
to the end (as a user profiles a run), then writes the profiler's trace into TRACE_DIR (what a
user pays to get it). Prints one JSON line: the median step time (per token for gpt2-decode) and
the seconds the trace took to write.
The two "ab" modes time collection switched on and off inside one process, because separate
processes on the lent machine differ by more than the costs measured: after the warm-up, PAIRS
(default 6) pairs of blocks of STEPS steps, "off" then "on"; the first pair is a warm-up of the
"on" state and is left out. "ab": "on" is a cudaProfilerStart..Stop range (Strata preloaded with
STRATA_CAPTURE_RANGE=cudaProfilerApi collects only there; without a profiler the calls do
nothing, which shows what the alternation itself does). "ab-cupti": CUPTI's own floor, no Strata:
"on" is libcupti attached with the activity kinds Strata records by default (kernel, memcpy,
memset) into buffers, "off" is after cuptiFinalize (bench/cupti_floor.py drives it).
"ab-kineto" / "ab-kineto-stacks": torch.profiler (CPU and CUDA activities, without or with
stacks), "on" is inside a started profile, "off" after its stop (its trace is built at the stop,
between the blocks, and not written). Prints the median step of each state and the median over
pairs of on / off."""
import json
import os
import statistics
import sys
import time

WARMUP = 3


def resnet50_train():
    import torch
    import torchvision
    model = torchvision.models.resnet50().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(64, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (64,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step, 1


def gpt2_train():
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    model = GPT2LMHeadModel(GPT2Config()).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    ids = torch.randint(0, 50000, (8, 512), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        model(ids, labels=ids).loss.backward()
        opt.step()
    return step, 1


def gpt2_decode():
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    model = GPT2LMHeadModel(GPT2Config()).cuda().eval()
    ids = torch.randint(0, 50000, (1, 16), device="cuda")
    tokens = 32

    def step():
        with torch.no_grad():
            model.generate(ids, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False, pad_token_id=0)
    return step, tokens


def tiny_kernels():
    import torch
    y = torch.zeros(256, device="cuda")

    def step():
        nonlocal y
        for _ in range(64):
            y = y * 1.0001 + 0.5
    return step, 1


def jax_train():
    import jax
    import jax.numpy as jnp
    import optax
    from flax import linen as nn

    class Mlp(nn.Module):
        @nn.compact
        def __call__(self, x):
            for width in (1024, 1024, 1024):
                x = nn.relu(nn.Dense(width)(x))
            return nn.Dense(10)(x)

    model, tx = Mlp(), optax.adam(1e-3)
    x = jnp.ones((256, 784))
    y = jnp.zeros((256,), dtype=jnp.int32)
    params = model.init(jax.random.PRNGKey(0), x)
    state = [params, tx.init(params)]

    @jax.jit
    def update(params, opt_state):
        def loss(p):
            return optax.softmax_cross_entropy_with_integer_labels(model.apply(p, x), y).mean()
        grads = jax.grad(loss)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state

    def step():
        state[0], state[1] = update(state[0], state[1])
        jax.block_until_ready(state[0])
    return step, 1


WORKLOADS = {"resnet50-train": resnet50_train, "gpt2-train": gpt2_train, "gpt2-decode": gpt2_decode,
             "tiny-kernels": tiny_kernels, "jax-train": jax_train}


class ProfilerRange:
    """cudaProfilerStart / Stop (cuProfilerStart / Stop for JAX, which has no torch), looked up in
    the process's global scope so that a preloaded runtime's interposer is the one called."""

    def __init__(self, jax):
        if jax:
            # Through the global scope (a preloaded runtime's interposers), else the driver's.
            import ctypes
            driver, scope = ctypes.CDLL("libcuda.so.1"), ctypes.CDLL(None)
            self.calls = tuple(getattr(scope, n, None) or getattr(driver, n) for n in ("cuProfilerStart", "cuProfilerStop"))
        else:
            import torch
            self.calls = (torch.cuda.profiler.start, torch.cuda.profiler.stop)

    def switch(self, on):
        self.calls[0 if on else 1]()


class CuptiFloor:
    """CUPTI attached with Strata's default activity kinds ("on") or finalized ("off")."""

    def __init__(self, sync):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import cupti_floor
        self.cupti = cupti_floor.Cupti(cupti_floor.find_cupti(os.environ.get("CUPTI_LIBRARY")), ["kernel", "memcpy", "memset"])
        self.sync = sync

    def switch(self, on):
        self.sync()
        if on:
            self.cupti.attach()
            self.cupti.enable(True)
        else:
            self.cupti.enable(False)
            self.cupti.check("cuptiActivityFlushAll", self.cupti.lib.cuptiActivityFlushAll(1))
            self.cupti.check("cuptiFinalize", self.cupti.lib.cuptiFinalize())


def torch_profile(stacks):
    """torch.profiler as the comparison runs it: CPU and CUDA activities, stacks or not."""
    import torch
    p = torch.profiler
    return p.profile(activities=[p.ProfilerActivity.CPU, p.ProfilerActivity.CUDA], with_stack=stacks)


class KinetoSwitch:
    """torch.profiler started ("on") or stopped ("off"); a new profile each "on"."""

    def __init__(self, sync, stacks):
        self.sync, self.stacks, self.prof = sync, stacks, None

    def switch(self, on):
        self.sync()
        if on:
            self.prof = torch_profile(self.stacks)
            self.prof.start()
        else:
            self.prof.stop()
            self.prof = None


def alternate(step, sync, per, steps, pairs, switch):
    """Blocks of steps, off then on; per state the step times of the pairs after the first."""
    def block():
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            step()
            sync()
            times.append((time.perf_counter() - t0) * 1e3 / per)
        return times
    off, on, ratios = [], [], []
    for p in range(pairs):
        a = block()
        switch(True)
        b = block()
        switch(False)
        if p == 0:
            # Before the profiler's first start: shows a profiler whose "off" is not what it was.
            first_off = statistics.median(a)
            continue
        off += a
        on += b
        ratios.append(statistics.median(b) / statistics.median(a))
    return {"first_off_ms": first_off, "off_ms": statistics.median(off), "on_ms": statistics.median(on),
            "on_over_off": statistics.median(ratios), "pair_ratios": [round(r, 4) for r in ratios]}


def main():
    if os.environ.get("BENCH_STACKS_AFTER_S"):  # a run that hangs says where (stderr)
        import faulthandler
        faulthandler.dump_traceback_later(float(os.environ["BENCH_STACKS_AFTER_S"]))
    workload, profiler, steps, trace_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    step, per = WORKLOADS[workload]()
    sync = (lambda: None) if workload == "jax-train" else __import__("torch").cuda.synchronize
    if profiler in ("ab", "ab-cupti", "ab-kineto", "ab-kineto-stacks"):
        for _ in range(WARMUP):
            step()
            sync()
        if profiler == "ab":
            switch = ProfilerRange(workload == "jax-train").switch
        elif profiler == "ab-cupti":
            switch = CuptiFloor(sync).switch
        else:
            switch = KinetoSwitch(sync, profiler.endswith("stacks")).switch
        pairs = int(sys.argv[5]) if len(sys.argv) > 5 else 6
        print(json.dumps(alternate(step, sync, per, steps, pairs, switch)), flush=True)
        return
    stop = None
    if profiler in ("torch-profiler", "torch-profiler-stacks"):
        prof = torch_profile(profiler.endswith("stacks"))
        prof.start()

        def stop():
            prof.stop()
            prof.export_chrome_trace(os.path.join(trace_dir, "trace.json"))
    elif profiler == "proton":
        import triton.profiler as proton
        proton.start(os.path.join(trace_dir, "proton"), backend="cupti")
        stop = proton.finalize
    times = []
    for i in range(WARMUP + steps):
        t0 = time.perf_counter()
        step()
        sync()
        if i >= WARMUP:
            times.append((time.perf_counter() - t0) * 1e3 / per)
    t0 = time.perf_counter()
    if stop:
        stop()
    print(json.dumps({"median_step_ms": statistics.median(times), "trace_write_s": time.perf_counter() - t0}), flush=True)


if __name__ == "__main__":
    main()
