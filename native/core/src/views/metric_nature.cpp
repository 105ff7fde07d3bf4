// Metric natures and frame origin names: the typed vocabulary the views, the addon and the
// webview share.
#include <array>
#include <string_view>

#include "strata/core/api.h"

namespace strata::core {

MetricNature MetricNatureOf(const std::string& name) {
  // The runtime's per-launch configuration (docs/gpu-metrics.md): one value per launch that
  // describes it; summing launches' grids or occupancies means nothing.
  static constexpr std::array<std::string_view, 6> kAttributes = {
      "grid_size", "block_size", "registers_per_thread", "static_shared_bytes",
      "dynamic_shared_bytes", "theoretical_occupancy"};
  for (std::string_view a : kAttributes)
    if (name == a) return MetricNature::kAttribute;
  return MetricNature::kAdditive;
}

const char* MetricNatureName(MetricNature n) {
  return n == MetricNature::kAttribute ? "attribute" : "additive";
}

const char* FrameOriginName(FrameOrigin o) {
  switch (o) {
    case FrameOrigin::kNone: return "none";
    case FrameOrigin::kUser: return "user";
    case FrameOrigin::kLibrary: return "library";
    case FrameOrigin::kInterpreter: return "interpreter";
    case FrameOrigin::kGpu: return "gpu";
  }
  return "none";
}

}  // namespace strata::core
