#include "gpu/trace_window_config.h"

#include <cstdlib>

namespace strata::rt::gpu {

uint32_t TraceWindowConfig::ClosedMs(uint64_t random) const {
  const uint64_t closed = period_ms - on_ms;
  // closed/2 + [0, closed]: the mean is `closed`, the duty cycle ON/PERIOD on average.
  return uint32_t(closed / 2 + (closed ? (random >> 11) % (closed + 1) : 0));
}

void TraceWindowConfig::StartAt(uint64_t random, bool* open, uint32_t* ms) const {
  const uint32_t at = period_ms ? uint32_t((random >> 11) % period_ms) : 0;
  *open = at < on_ms;
  *ms = *open ? on_ms - at : period_ms - at;
}

bool ParseTraceWindows(const char* value, TraceWindowConfig* out, std::string* why) {
  *out = TraceWindowConfig{};
  if (!value || !*value) return true;
  char* end = nullptr;
  unsigned long on = strtoul(value, &end, 10);
  unsigned long period = 0;
  if (end != value && *end == '/') {
    const char* p = end + 1;
    period = strtoul(p, &end, 10);
    if (end == p) period = 0;
  }
  if (!end || *end != '\0' || on == 0 || period <= on || period > 600000) {
    *why = std::string("STRATA_GPU_SAMPLING=") + value +
           " is not ON_MS/PERIOD_MS with 0 < ON_MS < PERIOD_MS <= 600000 (e.g. 100/1000): tracing every launch";
    return false;
  }
  out->on_ms = uint32_t(on);
  out->period_ms = uint32_t(period);
  return true;
}

}  // namespace strata::rt::gpu
