// The kernel a replay runs between restoring memory and a timed launch when asked for a clean
// L2 (--l2 clean): it reads a scratch buffer twice the size of the L2, one 4-byte word per
// 32-byte sector, so every line the restore copy left dirty is written back to DRAM before the
// timed launch instead of during it. PTX, JIT-compiled for whatever GPU loads it; a grid-stride
// loop over `sectors`; the sum is stored to `sink` only when non-zero (the buffer is zeroed), so
// the loads stay without a store.
#pragma once

#include <cstdint>

namespace strata::replay {

inline constexpr char kL2EvictKernelName[] = "strata_l2_evict";
inline constexpr char kL2EvictKernelPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry strata_l2_evict(.param .u64 buf, .param .u64 sectors, .param .u64 sink)
{
  .reg .u64 %rd<10>;
  .reg .u32 %r<8>;
  .reg .pred %p;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [sectors];
  ld.param.u64 %rd3, [sink];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mad.wide.u32 %rd4, %r1, %r2, 0;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  mul.wide.u32 %rd6, %r4, %r2;
  mov.u32 %r5, 0;
LOOP:
  setp.ge.u64 %p, %rd4, %rd2;
  @%p bra DONE;
  shl.b64 %rd7, %rd4, 5;
  add.u64 %rd8, %rd1, %rd7;
  ld.global.u32 %r6, [%rd8];
  add.u32 %r5, %r5, %r6;
  add.u64 %rd4, %rd4, %rd6;
  bra LOOP;
DONE:
  setp.eq.u32 %p, %r5, 0;
  @%p bra END;
  st.global.u32 [%rd3], %r5;
END:
  ret;
}
)";
inline constexpr uint32_t kL2EvictSectorBytes = 32;

}  // namespace strata::replay
