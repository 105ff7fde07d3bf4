// What `strata record --snap KERNEL[:N]` asks of the runtime, from the environment:
//   STRATA_SNAP=KERNEL[:N]     snap the N-th (default 1st) launch of the kernels whose mangled or
//                              demangled name contains KERNEL (launches of all of them counted)
//   STRATA_SNAP_OUTPUT=PATH    the snapshot file (a child process inserts .<pid> before .snap)
//   STRATA_SNAP_MAX_BYTES=N    region contents kept at most (default 4 GiB); larger allocations
//                              are recorded without their contents
//   STRATA_SNAP_PRELUDES=N     also keep up to N (at most 12) launches before the snapped one on
//                              its stream (default 0: they add their allocations and images)
#pragma once

#include <cstdint>
#include <string>

namespace strata::rt::gpu::snap {

inline constexpr int kMaxPreludes = 12;

struct SnapRequest {
  std::string kernel;        // substring of the kernel's name
  uint64_t nth = 1;          // 1-based
  std::string output;
  uint64_t max_bytes = 4ull << 30;
  int preludes = 0;  // launches before the snapped one to keep (0..kMaxPreludes)
  // The longest identifier in `kernel`: module images are kept when they contain it (a
  // demangled filter such as "at::native::foo" is found in mangled images by "foo").
  std::string image_key;
};

// "" when the spec parses; else one line saying why. `spec` is KERNEL or KERNEL:N.
std::string ParseSnapSpec(const std::string& spec, SnapRequest* out);
// From the environment; false when STRATA_SNAP is unset. `why` gets a parse error.
bool SnapRequestFromEnv(SnapRequest* out, std::string* why);

}  // namespace strata::rt::gpu::snap
