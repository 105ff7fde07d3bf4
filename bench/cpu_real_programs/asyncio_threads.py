import asyncio, hashlib, concurrent.futures as cf
def cpu(n):
    h = b"x"
    for _ in range(n): h = hashlib.sha256(h).digest()
    return h
async def worker(i, pool):
    loop = asyncio.get_running_loop()
    for _ in range(5):
        await loop.run_in_executor(pool, cpu, 60000)   # EXEC_LINE
        s = sum(k * k for k in range(100000))          # INLINE_LINE
        await asyncio.sleep(0)
async def main():
    with cf.ThreadPoolExecutor(2) as pool:
        await asyncio.gather(*(worker(i, pool) for i in range(4)))
asyncio.run(main())
