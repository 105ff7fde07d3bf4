"""A warp-specialized attention-style kernel written in Gluon (issue 7, part 4): flash-attention
forward (Q·Kᵀ, online softmax, P·V) where a one-warp producer partition streams K and V tiles
by TMA into a 2-deep shared-memory ring and the default four-warp partition computes with
wgmma; the two meet at mbarriers (ready: loaded; empty: consumed). Triton 3.6's automatic
warp specialization (`tl.range(warp_specialize=True)`, attention_ws.py --ws) does not run on
Hopper here, so the partitions are written out by hand, as Gluon asks.

Proton scopes: producer `wait_slot` (ring full) and `issue_kv`; consumer `wait_kv` (data not
there yet), `qk`, `softmax`, `pv`, and `store`; `load_q` before the partitions split.
2 heads x 1024 tokens x 64 dims in 64-row blocks: 32 CTAs, 16 iterations each.

For calibrating the record cost (bench/regions/calibration_h100.sh), `--density` puts a
`producer_loop` / `consumer_loop` scope around each partition's loop and, inside it: nothing
(`loop`: the loop span with two records, the truth), `sparse` (producer `wait_slot`, `issue_kv`;
consumer `wait_kv`, `compute`) or `dense` (consumer `wait_kv`, `qk`, `softmax`, `pv`); no
`load_q` / `store`. `--calibrate OUT` records and times it (proton_common.calibrate).
`--interleave loop,sparse,dense --calibrate DIR` holds every density's kernel in one process (this
file loaded once more per density: the scopes are module constants) on the same inputs and traces
their launches in turn (proton_common.calibrate_interleaved): DIR/<density>_n<tokens>_t<k>.

  python3 attention_ws_gluon.py [--proton OUT [--hatchet]] [--bench plain|proton]
  python3 attention_ws_gluon.py --density loop|sparse|dense --calibrate OUT [--n-ctx 1024,2048] [--ring 3]
  python3 attention_ws_gluon.py --no-scopes --calibrate OUT [--n-ctx 1024,2048]   (plain)
  python3 attention_ws_gluon.py --interleave loop,sparse,dense --calibrate DIR [--n-ctx ...] [--traces K]
"""
import importlib.util
import inspect
import sys

import torch
import triton
import triton.profiler.language as pl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma, warpgroup_mma
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

import proton_common as pc

# Gluon's API moved between releases: take whichever spelling this Triton has. warp_specialize
# has been (args, default_partition, worker_partitions, ...) with one argument tuple for all,
# (default_args, default_partition, worker_args, worker_partitions, ...), and
# ([(function, args), ...], ...): both partitions here take the same arguments, so all three fit.
# The TMA load is picked here, not under a constexpr `if` in the kernel: Triton's dependency
# finder resolves every attribute in a jit function's source, taken branch or not.
_tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
TMA_NEW = hasattr(tma, "async_load")
# Whether the partitions carry scopes: a module constant, since a constexpr passed through
# warp_specialize's argument tuple arrives in the partition as a tensor. A copy loaded by
# variant() is given its density before it runs (_VARIANT); the program itself reads its own.
_VARIANT = globals().get("_VARIANT")
if _VARIANT is None:
    SCOPES = gl.constexpr("--no-scopes" not in sys.argv)
    # The calibration densities (--density): read here for the same reason.
    DENSITY = next((sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--density"), "")
else:
    SCOPES = gl.constexpr(_VARIANT != "plain")
    DENSITY = "" if _VARIANT == "plain" else _VARIANT
LOOP_SCOPE = gl.constexpr(SCOPES.value and DENSITY != "")          # producer_loop / consumer_loop
OUTER_SCOPES = gl.constexpr(SCOPES.value and DENSITY == "")        # load_q, store
WAIT_SCOPES = gl.constexpr(SCOPES.value and DENSITY != "loop")     # wait_slot, issue_kv, wait_kv
FINE_SCOPES = gl.constexpr(SCOPES.value and DENSITY in ("", "dense"))  # qk, softmax, pv
COARSE_SCOPE = gl.constexpr(SCOPES.value and DENSITY == "sparse")  # compute (qk to pv)
WS_API = {"functions_and_args": 0, "default_args": 1, "args": 2}.get(list(inspect.signature(gl.warp_specialize).parameters)[0], 0)


@gluon.jit
def _load_rows(desc, row, bar, dst):
    """TMA of the descriptor's block at [row, 0] into `dst`, completing on `bar`."""
    _tma_load(desc, [row, 0], bar, dst)


@gluon.jit
def _producer(q_smem, k_bufs, v_bufs, ready, empty, desc_k, desc_v, o_ptr, row0, kv0, n_iter, qk_scale):
    # Block sizes come from the buffers' shapes: constexprs passed through warp_specialize's
    # argument tuple arrive as tensors.
    NB: gl.constexpr = k_bufs.type.shape[0]
    BM: gl.constexpr = q_smem.type.shape[0]
    BN: gl.constexpr = k_bufs.type.shape[1]
    D: gl.constexpr = k_bufs.type.shape[2]
    if LOOP_SCOPE:
        pl.enter_scope("producer_loop")
    for i in range(n_iter):
        idx = i % NB
        ph = (i // NB) & 1
        if WAIT_SCOPES:
            pl.enter_scope("wait_slot")
        # A fresh mbarrier counts as phase 1 complete: the first NB waits pass at once.
        mbarrier.wait(empty.index(idx), ph ^ 1)
        if WAIT_SCOPES:
            pl.exit_scope("wait_slot")
            pl.enter_scope("issue_kv")
        bar = ready.index(idx)
        mbarrier.expect(bar, desc_k.block_type.nbytes + desc_v.block_type.nbytes)
        _load_rows(desc_k, kv0 + i * BN, bar, k_bufs.index(idx))
        _load_rows(desc_v, kv0 + i * BN, bar, v_bufs.index(idx))
        if WAIT_SCOPES:
            pl.exit_scope("issue_kv")
    if LOOP_SCOPE:
        pl.exit_scope("producer_loop")


@gluon.jit
def _consumer(q_smem, k_bufs, v_bufs, ready, empty, desc_k, desc_v, o_ptr, row0, kv0, n_iter, qk_scale):
    # Block sizes come from the buffers' shapes: constexprs passed through warp_specialize's
    # argument tuple arrive as tensors.
    NB: gl.constexpr = k_bufs.type.shape[0]
    BM: gl.constexpr = q_smem.type.shape[0]
    BN: gl.constexpr = k_bufs.type.shape[1]
    D: gl.constexpr = k_bufs.type.shape[2]
    mma: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BN, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=mma, k_width=2)
    row: gl.constexpr = gl.SliceLayout(1, mma)
    m_i = gl.full([BM], float("-inf"), gl.float32, layout=row)
    l_i = gl.zeros([BM], gl.float32, layout=row)
    acc = gl.zeros([BM, D], gl.float32, layout=mma)
    zero_s = gl.zeros([BM, BN], gl.float32, layout=mma)
    if LOOP_SCOPE:
        pl.enter_scope("consumer_loop")
    for i in range(n_iter):
        idx = i % NB
        ph = (i // NB) & 1
        if WAIT_SCOPES:
            pl.enter_scope("wait_kv")
        mbarrier.wait(ready.index(idx), ph)
        if WAIT_SCOPES:
            pl.exit_scope("wait_kv")
        if COARSE_SCOPE:
            pl.enter_scope("compute")
        if FINE_SCOPES:
            pl.enter_scope("qk")
        qk = warpgroup_mma(q_smem, k_bufs.index(idx).permute((1, 0)), zero_s, use_acc=False)
        if FINE_SCOPES:
            pl.exit_scope("qk")
            pl.enter_scope("softmax")
        m_ij = gl.maximum(m_i, gl.max(qk, 1) * qk_scale)
        p = gl.exp2(qk * qk_scale - m_ij[:, None])
        alpha = gl.exp2(m_i - m_ij)
        l_i = l_i * alpha + gl.sum(p, 1)
        acc = acc * alpha[:, None]
        m_i = m_ij
        p16 = gl.convert_layout(p.to(gl.float16), p_layout)
        if FINE_SCOPES:
            pl.exit_scope("softmax")
            pl.enter_scope("pv")
        acc = warpgroup_mma(p16, v_bufs.index(idx), acc)
        if FINE_SCOPES:
            pl.exit_scope("pv")
        if COARSE_SCOPE:
            pl.exit_scope("compute")
        # The wgmma above is synchronous: K and V of this slot are no longer read.
        mbarrier.arrive(empty.index(idx))  # count 1 (some Gluon versions take no count)
    if LOOP_SCOPE:
        pl.exit_scope("consumer_loop")
    if OUTER_SCOPES:
        pl.enter_scope("store")
    acc = acc / l_i[:, None]
    offs_m = row0 + gl.arange(0, BM, layout=row)
    offs_d = gl.arange(0, D, layout=gl.SliceLayout(0, mma))
    gl.store(o_ptr + offs_m[:, None] * D + offs_d[None, :], acc.to(gl.float16))
    if OUTER_SCOPES:
        pl.exit_scope("store")


@gluon.jit
def attn_fwd_ws_gluon(desc_q, desc_k, desc_v, o_ptr, qk_scale, N_CTX,
                      BM: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, NB: gl.constexpr,
                      WS_API: gl.constexpr):
    row0 = gl.program_id(1) * N_CTX + gl.program_id(0) * BM
    kv0 = gl.program_id(1) * N_CTX
    q_smem = gl.allocate_shared_memory(desc_q.dtype, desc_q.block_type.shape, desc_q.layout)
    k_bufs = gl.allocate_shared_memory(desc_k.dtype, [NB] + desc_k.block_type.shape, desc_k.layout)
    v_bufs = gl.allocate_shared_memory(desc_v.dtype, [NB] + desc_v.block_type.shape, desc_v.layout)
    ready = gl.allocate_shared_memory(gl.int64, [NB, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NB, 1], mbarrier.MBarrierLayout())
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for s in gl.static_range(NB):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    mbarrier.init(q_bar, count=1)
    if OUTER_SCOPES:
        pl.enter_scope("load_q")
    mbarrier.expect(q_bar, desc_q.block_type.nbytes)
    _load_rows(desc_q, row0, q_bar, q_smem)
    mbarrier.wait(q_bar, 0)
    if OUTER_SCOPES:
        pl.exit_scope("load_q")
    n_iter = N_CTX // BN
    args = (q_smem, k_bufs, v_bufs, ready, empty, desc_k, desc_v, o_ptr, row0, kv0, n_iter, qk_scale)
    # The consumer is the default partition (the kernel's num_warps = 4 warps, one warp group);
    # the producer one more warp with few registers.
    if WS_API == 0:
        gl.warp_specialize([(_consumer, args), (_producer, args)], [1], [48])
    elif WS_API == 1:
        gl.warp_specialize(args, _consumer, args, [_producer], [1], [48])
    else:
        gl.warp_specialize(args, _consumer, [_producer], [1], [48])


def variant(density):
    """This file's kernel with the scopes of `density` (plain, loop, sparse, dense): the file loaded
    once more under its own module name, so that its kernel is compiled apart."""
    spec = importlib.util.spec_from_file_location(f"attention_ws_gluon_{density}", __file__)
    mod = importlib.util.module_from_spec(spec)
    mod._VARIANT = density
    spec.loader.exec_module(mod)
    return mod


def make(N_CTX, NB=2, kernels=None):
    """launch() and check() of the kernel on 2 heads x N_CTX tokens, an NB-deep K/V ring; with
    kernels ({tag: attn_fwd_ws_gluon of a variant}): {tag: (launch, check)}, every kernel on the
    same tensors (the same memory, so the densities differ by their scopes alone)."""
    H, D, BM, BN = 2, 64, 64, 64
    q, k, v, o, sm_scale = pc.attention_inputs(H, N_CTX, D)
    grid = (triton.cdiv(N_CTX, BM), H)
    lay = gl.NVMMASharedLayout.get_default_for([BM, D], gl.float16)
    dq, dk, dv = (TensorDescriptor.from_tensor(t.view(H * N_CTX, D), [BM, D], lay) for t in (q, k, v))

    def check():
        pc.check_attention(q, k, v, o, sm_scale)

    def launcher(kernel):
        def launch():
            kern = kernel[grid](dq, dk, dv, o, sm_scale * 1.44269504, N_CTX, BM=BM, BN=BN, D=D, NB=NB,
                                WS_API=WS_API, num_warps=4)
            pc.describe_once(launch, kern, f" (tma.async_load: {TMA_NEW}, warp_specialize form {WS_API})")
        return launch

    if kernels is None:
        return launcher(attn_fwd_ws_gluon), check
    return {tag: (launcher(kernel), check) for tag, kernel in kernels.items()}


def main():
    def extra(p):
        p.add_argument("--no-scopes", action="store_true", help="no Proton scopes at all")
        p.add_argument("--density", choices=["loop", "sparse", "dense"], help="calibration scopes (see above)")
        p.add_argument("--n-ctx", default="1024", help="with --calibrate: tokens per head, comma-separated shapes")
        p.add_argument("--ring", type=int, default=2, help="with --calibrate: the K/V ring's depth (another kernel)")
        p.add_argument("--interleave", metavar="DENSITIES",
                       help="with --calibrate DIR: these densities (loop, sparse, dense) in one process, traced in turn")

    args = pc.parse_args(__doc__.splitlines()[0], extra)
    if args.calibrate and args.interleave:
        densities = args.interleave.split(",")
        if not set(densities) <= {"loop", "sparse", "dense"} or len(set(densities)) != len(densities):
            raise SystemExit(f"--interleave: densities are loop, sparse, dense, each at most once (got {args.interleave})")
        kernels = {d: variant(d).attn_fwd_ws_gluon for d in densities}
        shapes = [(f"n{n}", make(int(n), args.ring, kernels)) for n in args.n_ctx.split(",")]
        pc.calibrate_interleaved("attention_ws_gluon", shapes, densities, args)
        return
    if args.calibrate:
        shapes = [(f"n{n}", *make(int(n), args.ring)) for n in args.n_ctx.split(",")]
        pc.calibrate("attention_ws_gluon", shapes, args, instrumented=not args.no_scopes)
        return
    launch, check = make(1024)
    pc.main("attention_ws_gluon", launch, check, args)


if __name__ == "__main__":
    pc.run_guarded(main)
