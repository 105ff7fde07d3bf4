// Small time helpers (all async-signal-safe: clock_gettime is).
#pragma once

#include <cstdint>
#include <ctime>

namespace strata::rt {

inline uint64_t NowNs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

inline void SleepNs(uint64_t ns) {
  timespec ts{time_t(ns / 1000000000ull), long(ns % 1000000000ull)};
  nanosleep(&ts, nullptr);
}

}  // namespace strata::rt
