// The wait kernel both sides of a snapshot time a launch with: the snap around the snapped
// launch in the run, the replay around each replayed launch. Queued before the start event, it
// keeps the stream busy until the kernel is queued behind it, so the events time the kernel and
// not the launch's latency on an idle stream (nor the hooks of the launch path). PTX, JIT-compiled
// for whatever GPU loads it; one thread, one u64 parameter: nanoseconds to wait on the global timer.
#pragma once

#include <cstdint>

namespace strata::snapshot {

inline constexpr char kWaitKernelName[] = "strata_timing_wait";
inline constexpr char kWaitKernelPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry strata_timing_wait(.param .u64 ns)
{
  .reg .u64 %rd<5>;
  .reg .pred %p;
  ld.param.u64 %rd1, [ns];
  mov.u64 %rd2, %globaltimer;
  add.u64 %rd3, %rd2, %rd1;
WAIT:
  mov.u64 %rd4, %globaltimer;
  setp.lt.u64 %p, %rd4, %rd3;
  @%p bra WAIT;
  ret;
}
.visible .entry strata_timing_empty()
{
  ret;
}
)";
// An empty kernel in the same module: timed as a launch is (wait kernel, events), it gives the
// floor of that measure, what the events add to a kernel's own duration.
inline constexpr char kEmptyKernelName[] = "strata_timing_empty";
// Long enough for the host to queue the events and the launch behind it, and for the SM clocks,
// idle while regions were copied, to come back up.
inline constexpr uint64_t kWaitKernelNs = 1000000;

}  // namespace strata::snapshot
