// The fixed-size record one sample leaves in its thread's ring.
#pragma once

#include <cstdint>

namespace strata::rt {

inline constexpr int kMaxDepth = 256;

// A frame word is either a native PC (bit 63 clear; caller frames already hold
// return address - 1, the interrupted frame holds the PC as is) or a Python frame (bit 63
// set): bits 32..62 index the thread's code cache, bits 0..31 hold the line.
inline constexpr uint64_t kPyFrameTag = 1ull << 63;
inline constexpr uint32_t kPyUnknownCode = 0x7FFFFFFFu;  // code cache full / unreadable

inline uint64_t PyFrameWord(uint32_t code_index, uint32_t line) {
  return kPyFrameTag | (uint64_t(code_index & 0x7FFFFFFFu) << 32) | line;
}
inline bool IsPyFrameWord(uint64_t w) { return (w & kPyFrameTag) != 0; }
inline uint32_t PyWordCode(uint64_t w) { return uint32_t((w >> 32) & 0x7FFFFFFFu); }
inline uint32_t PyWordLine(uint64_t w) { return uint32_t(w); }

enum SampleFlags : uint16_t {
  kSampleUnwindFailed = 1,  // libunwind reported an error before reaching the root
  kSamplePcOnly = 2,        // the loader was busy: only the interrupted PC was taken
  kSampleTruncated = 4,     // depth bound hit
};

struct SampleRecord {
  uint64_t value;     // metric value in ns (CPU or wall delta of this thread)
  uint16_t depth;     // frames used, leaf first
  uint16_t flags;     // SampleFlags
  uint32_t reserved;
  uint64_t frames[kMaxDepth];
};

}  // namespace strata::rt
