"""A software-pipelined Triton matmul (tl.range num_stages=3: cp.async loads in flight while
wgmma runs) with Proton scopes around the whole kernel, the loads, the dot and the store.
Small on purpose: 512x512x2048 in 128x128x64 tiles is 16 CTAs, 32 iterations each, so a
Proton trace of one launch stays well under a few MB.

  python3 matmul_pipelined.py [--proton OUT [--hatchet]] [--bench plain|proton] [--no-loop-scopes]
"""
import torch
import triton
import triton.language as tl
import triton.profiler.language as pl

import proton_common as pc


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr,
                  LOOP_SCOPES: tl.constexpr):
    pl.enter_scope("kernel")
    pid = tl.program_id(0)
    grid_n = tl.cdiv(N, BN)
    pid_m, pid_n = pid // grid_n, pid % grid_n
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * s_am + offs_k[None, :] * s_ak
    b_ptrs = b_ptr + offs_k[:, None] * s_bk + offs_n[None, :] * s_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in tl.range(0, K, BK, num_stages=STAGES):
        if LOOP_SCOPES:
            pl.enter_scope("load")
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        if LOOP_SCOPES:
            pl.exit_scope("load")
            pl.enter_scope("dot")
        acc = tl.dot(a, b, acc)
        if LOOP_SCOPES:
            pl.exit_scope("dot")
        a_ptrs += BK * s_ak
        b_ptrs += BK * s_bk
    pl.enter_scope("store")
    c_ptrs = c_ptr + offs_m[:, None] * s_cm + offs_n[None, :] * s_cn
    tl.store(c_ptrs, acc.to(tl.float16))
    pl.exit_scope("store")
    pl.exit_scope("kernel")


def main():
    args = pc.parse_args(__doc__.splitlines()[0])
    M, N, K = 512, 512, 2048
    BM, BN, BK, STAGES = 128, 128, 64, 3
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)

    def launch():
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK, STAGES=STAGES,
                            LOOP_SCOPES=not args.no_loop_scopes, num_warps=8)

    def check():
        torch.testing.assert_close(c, a @ b, rtol=1e-2, atol=1e-1)

    pc.main("matmul_pipelined", launch, check, args)


if __name__ == "__main__":
    pc.run_guarded(main)
