#include "strata/core/gpu_sampling.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "strata/core/api.h"

namespace strata::core {
namespace {

// The whole string as an unsigned decimal number, or nullopt.
std::optional<uint64_t> Unsigned(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  uint64_t v = 0;
  const char* end = s->data() + s->size();
  const auto [at, ec] = std::from_chars(s->data(), end, v);
  if (ec != std::errc() || at != end || s->empty()) return std::nullopt;
  return v;
}

std::optional<double> Number(const std::optional<std::string>& s) {
  if (!s || s->empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s->c_str(), &end);
  if (errno != 0 || end != s->c_str() + s->size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

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
  return s;
}

}  // namespace strata::core
