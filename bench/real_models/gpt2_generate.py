"""HuggingFace GPT-2 (random weights, nothing downloaded) decoding token by token on CUDA: a real
program nobody on the project wrote, launch-bound (about 200 kernels a token), whose import
alone creates tens of thousands of code objects.
usage: gpt2_generate.py [NEW_TOKENS] [BATCH] [REPEATS] [ab]
With REPEATS > 1 the generation is timed that many times and the median is printed (the first
one also pays for what a profiler does once per call site). With "ab" the repeats alternate
between torch.cuda.profiler.start() and stop() (a profiler recording only the capture range
collects every other generation: its cost measured inside one process); the medians of both
halves are printed, and of three generations before the first start (collection never on)."""
import statistics
import sys
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    new_tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    ab = len(sys.argv) > 4 and sys.argv[4] == "ab"
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config()).cuda().eval()
    ids = torch.randint(0, 50000, (batch, 16), device="cuda")
    with torch.no_grad():
        model.generate(ids, max_new_tokens=4, do_sample=False, pad_token_id=0)  # warm-up
        torch.cuda.synchronize()
        times, on, off, before = [], [], [], []
        if ab:  # generations before the first start: collection never switched on yet
            for _ in range(3):
                t0 = time.perf_counter()
                model.generate(ids, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False,
                               pad_token_id=0)
                torch.cuda.synchronize()
                before.append(time.perf_counter() - t0)
        for r in range(repeats):
            if ab:
                (torch.cuda.profiler.start if r % 2 == 0 else torch.cuda.profiler.stop)()
            t0 = time.perf_counter()
            out = model.generate(ids, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False,
                                 pad_token_id=0)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
            (on if r % 2 == 0 else off).append(times[-1])
        if ab:
            torch.cuda.profiler.stop()
    dt = statistics.median(times)
    print(f"generated {out.shape[1] - ids.shape[1]} tokens in {dt * 1e3:.1f} ms "
          f"({dt * 1e3 / new_tokens:.2f} ms/token)"
          + (f"; each: {', '.join(f'{t * 1e3 / new_tokens:.2f}' for t in times)}" if repeats > 1 else ""))
    if ab:
        print(f"capture on: {statistics.median(on) * 1e3 / new_tokens:.3f} ms/token, "
              f"off: {statistics.median(off) * 1e3 / new_tokens:.3f} ms/token, "
              f"before the first start: {statistics.median(before) * 1e3 / new_tokens:.3f} ms/token")


if __name__ == "__main__":
    main()
