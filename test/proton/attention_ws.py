"""An attention-style Triton kernel (flash-attention forward: Q·Kᵀ, online softmax, P·V) with a
Proton scope per stage of the KV loop: load_k, qk, softmax, load_v, pv. `--ws` warp-specializes
the loop (tl.range(warp_specialize=True): a producer warp group loads K and V by TMA, the others
compute); Triton 3.6 does that on Hopper only for loads through tensor descriptors (pointer
loads fail its NVGPUWarpSpecialization pass), so `--ws` runs attn_fwd_ws, the same algorithm
with TensorDescriptor loads. Without `--ws` the loop is software-pipelined (num_stages=2).
2 heads x 1024 tokens x 64 dims in 128-row blocks: 16 CTAs, 16 iterations each.

  python3 attention_ws.py [--ws] [--proton OUT [--hatchet]] [--bench plain|proton] [--no-loop-scopes]
"""
import torch
import triton
import triton.language as tl
import triton.profiler.language as pl

import proton_common as pc
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N_CTX,
             BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr, WS: tl.constexpr,
             LOOP_SCOPES: tl.constexpr):
    pl.enter_scope("kernel")
    start_m = tl.program_id(0)
    base = tl.program_id(1) * N_CTX * D
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    pl.enter_scope("load_q")
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :])
    pl.exit_scope("load_q")
    m_i = tl.full([BM], -float("inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in tl.range(0, N_CTX, BN, num_stages=2, warp_specialize=WS):
        if LOOP_SCOPES:
            pl.enter_scope("load_k")
        k = tl.load(k_ptr + base + (start_n + offs_n)[None, :] * D + offs_d[:, None])
        if LOOP_SCOPES:
            pl.exit_scope("load_k")
            pl.enter_scope("qk")
        qk = tl.dot(q, k)
        if LOOP_SCOPES:
            pl.exit_scope("qk")
            pl.enter_scope("softmax")
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        m_i = m_ij
        if LOOP_SCOPES:
            pl.exit_scope("softmax")
            pl.enter_scope("load_v")
        v = tl.load(v_ptr + base + (start_n + offs_n)[:, None] * D + offs_d[None, :])
        if LOOP_SCOPES:
            pl.exit_scope("load_v")
            pl.enter_scope("pv")
        acc = tl.dot(p.to(tl.float16), v, acc)
        if LOOP_SCOPES:
            pl.exit_scope("pv")
    pl.enter_scope("store")
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :], acc.to(tl.float16))
    pl.exit_scope("store")
    pl.exit_scope("kernel")


@triton.jit
def attn_fwd_ws(desc_q, desc_k, desc_v, o_ptr, sm_scale, N_CTX,
                BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr, LOOP_SCOPES: tl.constexpr, SCOPES: tl.constexpr):
    if SCOPES:
        pl.enter_scope("kernel")
    row0 = tl.program_id(1) * N_CTX + tl.program_id(0) * BM
    kv0 = tl.program_id(1) * N_CTX
    if SCOPES:
        pl.enter_scope("load_q")
    q = desc_q.load([row0, 0])
    if SCOPES:
        pl.exit_scope("load_q")
    m_i = tl.full([BM], -float("inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in tl.range(0, N_CTX, BN, num_stages=2, warp_specialize=True):
        if SCOPES and LOOP_SCOPES:
            pl.enter_scope("load_k")
        k = desc_k.load([kv0 + start_n, 0]).T
        if SCOPES and LOOP_SCOPES:
            pl.exit_scope("load_k")
            pl.enter_scope("qk")
        qk = tl.dot(q, k)
        if SCOPES and LOOP_SCOPES:
            pl.exit_scope("qk")
            pl.enter_scope("softmax")
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        m_i = m_ij
        if SCOPES and LOOP_SCOPES:
            pl.exit_scope("softmax")
            pl.enter_scope("load_v")
        v = desc_v.load([kv0 + start_n, 0])
        if SCOPES and LOOP_SCOPES:
            pl.exit_scope("load_v")
            pl.enter_scope("pv")
        acc = tl.dot(p.to(tl.float16), v, acc)
        if SCOPES and LOOP_SCOPES:
            pl.exit_scope("pv")
    if SCOPES:
        pl.enter_scope("store")
    acc = acc / l_i[:, None]
    # A pointer store: a descriptor store here fails Triton 3.6's warp-specialization pass on
    # Hopper ("tensor descriptor block and tensor types must match").
    offs_m = row0 + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    tl.store(o_ptr + offs_m[:, None] * D + offs_d[None, :], acc.to(tl.float16))
    if SCOPES:
        pl.exit_scope("store")
    if SCOPES:
        pl.exit_scope("kernel")


def main():
    args = pc.parse_args(__doc__.splitlines()[0],
                         lambda p: (p.add_argument("--ws", action="store_true", help="warp-specialize the KV loop"),
                                    p.add_argument("--no-scopes", action="store_true", help="with --ws: no Proton scopes at all")))
    H, N_CTX, D, BM, BN = 2, 1024, 64, 128, 64
    q, k, v, o, sm_scale = pc.attention_inputs(H, N_CTX, D)
    grid = (triton.cdiv(N_CTX, BM), H)

    if args.ws:
        flat = lambda t, rows: TensorDescriptor.from_tensor(t.view(H * N_CTX, D), [rows, D])
        dq, dk, dv = flat(q, BM), flat(k, BN), flat(v, BN)

    def launch():
        if args.ws:
            kern = attn_fwd_ws[grid](dq, dk, dv, o, sm_scale, N_CTX, BM=BM, BN=BN, D=D,
                                     LOOP_SCOPES=not args.no_loop_scopes, SCOPES=not args.no_scopes, num_warps=4)
            pc.describe_once(launch, kern)
        else:
            attn_fwd[grid](q, k, v, o, sm_scale, N_CTX, BM=BM, BN=BN, D=D, WS=False,
                           LOOP_SCOPES=not args.no_loop_scopes, num_warps=4)

    def check():
        pc.check_attention(q, k, v, o, sm_scale)

    pc.main("attention_ws" if args.ws else "attention", launch, check, args)


if __name__ == "__main__":
    pc.run_guarded(main)
