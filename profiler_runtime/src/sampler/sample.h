// The fixed-size record one sample leaves in its thread's ring.
#pragma once

#include <cstdint>

namespace strata::rt {

// Deep enough for framework programs (each Python call through C adds native frames; a PyTorch
// training step runs 300+ frames deep); records are fixed-size, but ring pages are touched only
// as deep as the stacks go.
inline constexpr int kMaxDepth = 1024;

// A frame word is one of three kinds, told apart by the top two bits:
//   0x : native PC (bit 63 clear; caller frames already hold return address - 1, the
//        interrupted frame holds the PC as is);
//   10 : Python frame of this thread whose name the aggregator has not interned yet: bits
//        32..61 = the thread's name sequence number (python/name_ring.h), bits 0..31 = line
//        (only meaningful together with its thread slot; only the SIGPROF handler writes them);
//   11 : special word, meaningful process-wide: bits 58..61 = sub-kind, bits 0..57 = payload.
//        kSpecialOp: an operator frame, payload = interned operator name id (ops/op_registry);
//        kSpecialPy: a Python frame resolved to a process-wide code id (python/code_names.h,
//        bits 32..57) + line (bits 0..31): what a walk emits once the code object's name is
//        interned, and what paths that outlive or leave their thread carry (operator context,
//        forward paths adopted by backward operators on the autograd thread).
//        kSpecialThread: a thread frame, payload = interned name id (ops/op_registry): the
//        launching thread of GPU work placed under another thread's Python stack
//        (python/main_stack.h).
inline constexpr uint64_t kPyFrameTag = 1ull << 63;
inline constexpr uint64_t kSpecialTag = 3ull << 62;

inline uint64_t PendingPyWord(uint32_t seq, uint32_t line) {
  return kPyFrameTag | (uint64_t(seq & 0x3FFFFFFFu) << 32) | line;
}
inline bool IsPendingPyWord(uint64_t w) { return (w >> 62) == 2; }
inline uint32_t PendingPySeq(uint64_t w) { return uint32_t((w >> 32) & 0x3FFFFFFFu); }
inline uint32_t PyWordLine(uint64_t w) { return uint32_t(w); }

//        kSpecialCut: where the stack was cut, payload = a StackCut (the frames rootward of it
//        are unknown; the aggregator makes it a kFrameFlagTruncation frame).
enum SpecialKind : uint32_t { kSpecialOp = 1, kSpecialPy = 2, kSpecialThread = 3, kSpecialCut = 4 };
enum StackCut : uint32_t { kCutDepthLimit = 1, kCutUnwindFailed = 2, kCutPcOnly = 3 };
inline bool IsSpecialWord(uint64_t w) { return (w >> 62) == 3; }
inline bool IsGlobalPyWord(uint64_t w) { return (w >> 62) == 3 && ((w >> 58) & 0xF) == kSpecialPy; }
// Any Python frame, pending or interned.
inline bool IsPyFrameWord(uint64_t w) { return IsPendingPyWord(w) || IsGlobalPyWord(w); }
inline bool IsNativeWord(uint64_t w) { return (w >> 63) == 0; }
inline uint32_t SpecialKindOf(uint64_t w) { return uint32_t((w >> 58) & 0xF); }
inline uint64_t OpFrameWord(uint32_t name_id) { return kSpecialTag | (uint64_t(kSpecialOp) << 58) | name_id; }
inline uint32_t OpWordName(uint64_t w) { return uint32_t(w); }
inline uint64_t ThreadFrameWord(uint32_t name_id) { return kSpecialTag | (uint64_t(kSpecialThread) << 58) | name_id; }
inline uint64_t GlobalPyWord(uint32_t global_code, uint32_t line) {
  return kSpecialTag | (uint64_t(kSpecialPy) << 58) | (uint64_t(global_code & 0x3FFFFFFu) << 32) | line;
}
inline uint32_t GlobalPyCode(uint64_t w) { return uint32_t((w >> 32) & 0x3FFFFFFu); }
inline uint64_t CutWord(StackCut why) { return kSpecialTag | (uint64_t(kSpecialCut) << 58) | why; }
inline bool IsCutWord(uint64_t w) { return IsSpecialWord(w) && SpecialKindOf(w) == kSpecialCut; }
inline StackCut CutWordReason(uint64_t w) { return StackCut(uint32_t(w)); }

enum SampleFlags : uint16_t {
  kSampleUnwindFailed = 1,  // libunwind reported an error before reaching the root
  kSamplePcOnly = 2,        // the loader was busy: only the interrupted PC was taken
  kSampleTruncated = 4,     // depth bound hit
  kSampleNamesDropped = 8,  // the thread's name ring was full: the sample is dropped, not kept unnamed
};

struct SampleRecord {
  uint64_t value;     // metric value in ns (CPU or wall delta of this thread)
  uint16_t depth;     // frames used, leaf first
  uint16_t flags;     // SampleFlags
  uint32_t own_ns;   // the profiler's own time on this thread since its previous sample (saturating)
  uint64_t elapsed;  // CPU-time sampling: wall-clock ns since this thread's previous sample (0: unknown)
  uint64_t frames[kMaxDepth];
};

}  // namespace strata::rt
