"""HuggingFace GPT-2 (random weights, nothing downloaded) decoding token by token on CUDA: a real
program nobody on the project wrote, launch-bound (about 200 kernels a token), whose import
alone creates tens of thousands of code objects.
usage: gpt2_generate.py [NEW_TOKENS] [BATCH] [REPEATS]
With REPEATS > 1 the generation is timed that many times and the median is printed (the first
one also pays for what a profiler does once per call site)."""
import statistics
import sys
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    new_tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config()).cuda().eval()
    ids = torch.randint(0, 50000, (batch, 16), device="cuda")
    with torch.no_grad():
        model.generate(ids, max_new_tokens=4, do_sample=False, pad_token_id=0)  # warm-up
        torch.cuda.synchronize()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = model.generate(ids, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False,
                                 pad_token_id=0)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
    dt = statistics.median(times)
    print(f"generated {out.shape[1] - ids.shape[1]} tokens in {dt * 1e3:.1f} ms "
          f"({dt * 1e3 / new_tokens:.2f} ms/token)"
          + (f"; each: {', '.join(f'{t * 1e3 / new_tokens:.2f}' for t in times)}" if repeats > 1 else ""))


if __name__ == "__main__":
    main()
