// Decodes the raw buffer that kernels instrumented with profiler_runtime/include/strata/regions.cuh
// write (layout: docs/regions.md), pairs starts and ends into intervals, puts every lane on one
// nanosecond axis and replays the trace (takes out the calibrated per-record cost, deduces async
// waits). Pure C++17: no CUDA headers, no LLVM, no JSON; the runtime and the core link it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "strata/region_decoder/trace.h"

namespace strata::region_decoder {

// Decode a raw buffer (header + arena, as read back after the launch). Never throws on bad
// bytes: what cannot be read is an issue.
Trace Decode(const uint8_t* data, size_t size, const DecodeOptions& options = {});
Trace DecodeFile(const std::string& path, const DecodeOptions& options = {});

}  // namespace strata::region_decoder
