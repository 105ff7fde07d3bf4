// Sampled GPU tracing as a profile states it. The runtime traces GPU work only inside windows
// (ON ms of every PERIOD ms) and multiplies the additive GPU metrics (GPU, sync and API time,
// bytes copied and set) by PERIOD/ON, so that they estimate the whole run; counts stay as
// observed. With torch it counts operator calls in and out of the windows and scales by the
// windows' share of those instead (where tracing slows the program the windows hold less of its
// work than of its time). It writes that as meta entries of their own, read back here.
#pragma once

#include <cstdint>
#include <optional>

namespace strata::core {

class Profile;

struct GpuSampling {
  uint32_t window_ms = 0;        // meta gpu_window_ms: how long a window was open
  uint32_t period_ms = 0;        // meta gpu_window_period_ms: one window per period, on average
  double scale = 1;              // meta gpu_scale: the factor the additive GPU metrics carry
  uint64_t windows_opened = 0;   // meta gpu_windows_opened
  // meta gpu_time_scale: the windows' share of time as a factor, as measured (the run's or the
  // capture ranges' time over the time traced; nominally PERIOD/ON; profiles before it: scale).
  double time_scale = 1;
  // meta gpu_scale_basis "operator_calls": scale is all operator calls over those in windows.
  bool by_operator_calls = false;
  // Fewer than kSteadyWindows windows opened: each line's share of GPU time comes from a few
  // stretches of the run and can be several points off.
  bool few_windows = false;
};

// On the H200, ResNet-50 training's sampled runs with 2-3 windows had a line 8.5 points off its
// share under full tracing; with 4-10 windows every line was within 3.1 points.
constexpr uint64_t kSteadyWindows = 10;

// nullopt when the profile traced every launch (no entries), or when its entries do not make a
// sampling (a window not shorter than its period, a scale below 1, a value that is not a number).
std::optional<GpuSampling> ReadGpuSampling(const Profile& profile);

}  // namespace strata::core
