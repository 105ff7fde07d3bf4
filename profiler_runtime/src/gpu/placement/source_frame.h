// A Python source location a compiler recorded for the code it generated (XLA's op metadata,
// Inductor's FX stack traces): what a placement turns into a Python frame above a kernel.
#pragma once

#include <cstdint>
#include <string>

namespace strata::rt::gpu {

struct SourceFrame {
  std::string file;
  std::string function;
  uint32_t line = 0;
};

}  // namespace strata::rt::gpu
