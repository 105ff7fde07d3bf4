// The control bits of a 128-bit Volta-to-Hopper instruction: bits 105-125 of the little-endian
// 16 bytes hold, low to high, stall (4), yield (1, clear = yield), write scoreboard (3, 7 =
// none), read scoreboard (3, 7 = none), wait mask (6), reuse (4). The layout the open
// assemblers (maxas, CuAssembler) document, checked on real sm_90 cubins against their listings
// (native/core/tests/sass_deps_test.cpp: a variable-latency producer's scoreboard is waited on by
// its consumer; reuse bits where nvdisasm prints ".reuse").
#pragma once

#include <cstdint>
#include <string_view>

#include "strata/core/sass_deps.h"

namespace strata::core::sass {

constexpr size_t kInstructionBytes = 16;

// `bytes` holds at least 16 bytes: one instruction.
SassControl DecodeControlBits(std::string_view bytes);

}  // namespace strata::core::sass
