"""HuggingFace GPT-2 (random weights, nothing downloaded) decoding token by token on CUDA: a real
program nobody on the project wrote, launch-bound (about 200 kernels a token), whose import
alone creates tens of thousands of code objects.
usage: gpt2_generate.py [NEW_TOKENS] [BATCH]"""
import sys
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    new_tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config()).cuda().eval()
    ids = torch.randint(0, 50000, (batch, 16), device="cuda")
    with torch.no_grad():
        model.generate(ids, max_new_tokens=4, do_sample=False, pad_token_id=0)  # warm-up
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = model.generate(ids, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False,
                             pad_token_id=0)
        torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"generated {out.shape[1] - ids.shape[1]} tokens in {dt * 1e3:.1f} ms "
          f"({dt * 1e3 / new_tokens:.2f} ms/token)")


if __name__ == "__main__":
    main()
