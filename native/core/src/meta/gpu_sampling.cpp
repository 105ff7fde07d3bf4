#include "strata/core/gpu_sampling.h"

#include <string>

#include "meta_number.h"
#include "strata/core/api.h"

namespace strata::core {
namespace {

std::optional<uint64_t> Unsigned(const std::optional<std::string>& s) {
  return s ? MetaUnsigned(*s) : std::nullopt;
}

std::optional<double> Number(const std::optional<std::string>& s) { return s ? MetaNumber(*s) : std::nullopt; }

}  // namespace

std::optional<GpuSampling> ReadGpuSampling(const Profile& profile) {
  const auto on = Unsigned(profile.meta("gpu_window_ms"));
  const auto period = Unsigned(profile.meta("gpu_window_period_ms"));
  const auto scale = Number(profile.meta("gpu_scale"));
  if (!on || !period || !scale || *on == 0 || *period <= *on || *period > UINT32_MAX || *scale < 1) return std::nullopt;
  GpuSampling s;
  s.window_ms = uint32_t(*on);
  s.period_ms = uint32_t(*period);
  s.scale = *scale;
  s.windows_opened = Unsigned(profile.meta("gpu_windows_opened")).value_or(0);
  const auto time = Number(profile.meta("gpu_time_scale"));
  s.time_scale = time && *time >= 1 ? *time : s.scale;
  s.by_operator_calls = profile.meta("gpu_scale_basis").value_or("") == "operator_calls";
  s.few_windows = s.windows_opened > 0 && s.windows_opened < kSteadyWindows;
  return s;
}

}  // namespace strata::core
