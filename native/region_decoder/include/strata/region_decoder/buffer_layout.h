// The region buffer's layout as the device writes it (profiler_runtime/include/strata/regions.cuh;
// prose: docs/regions.md "The buffer"). Keep the three in step.
#pragma once

#include <cstdint>

namespace strata::region_decoder {

inline constexpr uint32_t kMagic = 0x47455253u;  // "SREG"
inline constexpr uint32_t kAbiVersion = 1;
inline constexpr uint32_t kHeaderBytes = 64;
inline constexpr uint32_t kLaneEntryBytes = 96;
inline constexpr uint32_t kChunkEntryBytes = 32;
inline constexpr uint32_t kRecordBytes = 8;
inline constexpr uint32_t kEntryLane = 1, kEntryChunk = 2;
inline constexpr uint32_t kMaxRegionId = 4095;  // 12 bits
// Kinds 6-8 (barrier markers) came later; buffers without them decode as before.
enum class RecordKind : uint8_t {
  kStart = 0, kEnd = 1, kIterStart = 2, kIterEnd = 3, kFlushBegin = 4, kFlushEnd = 5,
  kBarrierArrive = 6,     // the lane arrives on barrier `region` for use `iter`
  kBarrierWaitStart = 7,  // the lane begins to wait on barrier `region`, use `iter`
  kBarrierWaitEnd = 8,    // the wait returned
};
// The calibration kernel's region ids (strata::regions::CalibrationKernel).
inline constexpr uint32_t kCalibBaseline = 1, kCalibMarked = 2, kCalibBackToBack = 3;

}  // namespace strata::region_decoder
