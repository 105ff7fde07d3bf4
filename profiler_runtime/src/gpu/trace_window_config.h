// Sampled GPU tracing's settings (gpu/cupti/trace_windows.h runs the windows):
// STRATA_GPU_SAMPLING=ON_MS/PERIOD_MS, e.g. 100/1000. Pure; no CUPTI.
#pragma once

#include <cstdint>
#include <string>

namespace strata::rt::gpu {

struct TraceWindowConfig {
  uint32_t on_ms = 0;
  uint32_t period_ms = 0;
  bool Enabled() const { return on_ms > 0 && period_ms > on_ms; }
  double Scale() const { return Enabled() ? double(period_ms) / double(on_ms) : 1.0; }
  // How long the window stays closed this period: PERIOD_MS - ON_MS on average, drawn from
  // 0.5x to 1.5x of it by `random` (any 64 bits), so that windows do not keep falling on the
  // same part of a program's step when the period is a multiple of the step.
  uint32_t ClosedMs(uint64_t random) const;
  // Where a capture range enters the cycle: a point drawn uniformly over one period, so that a
  // range neither always starts with a window (its first steps would weigh ON/PERIOD of them
  // in every range: GPT-2 decoding's first tokens did) nor never does. *open: whether that point
  // lies in a window; *ms: how long until the window closes (or the next one opens).
  void StartAt(uint64_t random, bool* open, uint32_t* ms) const;
};

// xorshift64 (state never 0): the windows' random draws.
inline uint64_t NextWindowRandom(uint64_t* state) {
  uint64_t x = *state;
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return *state = x;
}

// Reads a STRATA_GPU_SAMPLING value ("" or null: full tracing). False with `why` set on a bad
// value (the run then traces every launch and says so).
bool ParseTraceWindows(const char* value, TraceWindowConfig* out, std::string* why);

}  // namespace strata::rt::gpu
