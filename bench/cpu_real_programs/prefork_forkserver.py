import os, signal, time, multiprocessing as mp
def busy(tag):
    end = time.time() + 30
    x = 0
    while time.time() < end:
        x += sum(i*i for i in range(1000))
def fsw(n):
    return sum(i*i for i in range(n))
if __name__ == "__main__":
    pids = []
    for i in range(2):
        pid = os.fork()
        if pid == 0:
            busy(i); os._exit(0)
        pids.append(pid)
    time.sleep(1.0)
    for p in pids: os.kill(p, signal.SIGTERM)
    print([os.waitpid(p, 0)[1] for p in pids])
    with mp.get_context("forkserver").Pool(2) as pool:
        print(sum(pool.map(fsw, [300000]*8)))
