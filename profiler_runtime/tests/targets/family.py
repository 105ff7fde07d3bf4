# Programs that start other processes, for the children and stress tests: each mode prints what
# it did (deterministic lines) so a run under strata record can be compared with a plain one.
#   family.py work [N]            CPU work in named functions, prints "work done"
#   family.py subprocess          runs `python3 family.py work` as a child (subprocess.run)
#   family.py pool METHOD [N]     multiprocessing Pool(N) with start method fork|spawn|forkserver
#   family.py fork [N]            os.fork() N children (no exec) that work then os._exit(i)
#   family.py threads [N]         N Python threads working at once
#   family.py stdin_pipe          feeds 100,000 lines through `cat` and counts them back
#   family.py argv ARGS...        prints its arguments (repr)
#   family.py dataloader          torch DataLoader with 2 fork workers (exit 77: no torch)
#   family.py fill_after_checkpoint
#                                 work until the first checkpoint is on disk, then lower the file
#                                 size limit below it and grow the profile: the final write fails
import multiprocessing
import os
import subprocess
import sys
import threading
import time


def spin(seconds):
    end = time.process_time() + seconds
    x = 0
    while time.process_time() < end:
        for i in range(1000):
            x += i * i
    return x


def child_work(i):
    spin(0.3)
    return i * i


def main():
    mode = sys.argv[1]
    if mode == "work":
        spin(float(sys.argv[2]) if len(sys.argv) > 2 else 0.4)
        print("work done", flush=True)
    elif mode == "subprocess":
        r = subprocess.run([sys.executable, __file__, "work", "0.4"], capture_output=True, text=True)
        print("child said:", r.stdout.strip(), "exit", r.returncode, flush=True)
    elif mode == "pool":
        n = int(sys.argv[3]) if len(sys.argv) > 3 else 2
        ctx = multiprocessing.get_context(sys.argv[2])
        with ctx.Pool(n) as pool:
            print("results", pool.map(child_work, range(n)), flush=True)
    elif mode == "fork":
        n = int(sys.argv[2]) if len(sys.argv) > 2 else 3
        pids = []
        for i in range(n):
            pid = os.fork()
            if pid == 0:
                spin(0.2)
                os._exit(i)
            pids.append(pid)
        codes = [os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids]
        print("children exited", codes, flush=True)
    elif mode == "threads":
        n = int(sys.argv[2]) if len(sys.argv) > 2 else 32
        ts = [threading.Thread(target=spin, args=(0.05,)) for _ in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        print("threads joined", n, flush=True)
    elif mode == "stdin_pipe":
        data = "".join("line %d\n" % i for i in range(100000))
        r = subprocess.run(["cat"], input=data, capture_output=True, text=True)
        print("lines back", r.stdout.count("\n"), flush=True)
    elif mode == "argv":
        for a in sys.argv[2:]:
            print(repr(a))
    elif mode == "dataloader":
        try:
            import torch
            from torch.utils.data import DataLoader, Dataset
        except Exception:
            sys.exit(77)

        class Squares(Dataset):
            def __len__(self):
                return 8

            def __getitem__(self, i):
                spin(0.05)
                return torch.tensor([i * i])

        loader = DataLoader(Squares(), batch_size=2, num_workers=2,
                            multiprocessing_context="fork")
        print("batches", [b.flatten().tolist() for b in loader], flush=True)
    elif mode == "fill_after_checkpoint":
        import resource
        import signal
        out = os.environ.get("STRATA_OUTPUT")
        spin(0.2)
        if out:  # under strata record: wait for the first checkpoint
            deadline = time.time() + 20
            while not os.path.exists(out) and time.time() < deadline:
                spin(0.05)
            size = os.path.getsize(out)
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (size + 2048, size + 2048))
        # Thousands of distinct functions: the final profile outgrows the limit.
        for i in range(3000):
            ns = {}
            exec("def f_%d_with_a_long_name_to_grow_the_profile(spin):\n    return spin(0.0002)\n" % i, ns)
            ns["f_%d_with_a_long_name_to_grow_the_profile" % i](spin)
        print("filled", flush=True)
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
