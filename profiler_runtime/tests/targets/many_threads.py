# N CPU-bound Python threads taking turns on the GIL, each in a function of its own
# (spin_0 ... spin_{N-1}) so a profile can tell them apart; each burns SECONDS of its own CPU time.
# usage: many_threads.py [N] [SECONDS]
import sys
import threading
import time

n = int(sys.argv[1]) if len(sys.argv) > 1 else 32
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0.04
for k in range(n):
    exec(f"def spin_{k}(seconds):\n"
         f"    end = time.thread_time() + seconds\n"
         f"    x = 0\n"
         f"    while time.thread_time() < end:\n"
         f"        for i in range(500):\n"
         f"            x = (x + i) & 0xFFFF\n"
         f"    return x\n")
threads = [threading.Thread(target=globals()[f"spin_{k}"], args=(seconds,)) for k in range(n)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("threads joined", n, flush=True)
