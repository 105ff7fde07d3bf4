#include "launch_rate_advice.h"

#include <cstdio>
#include <cstdlib>

namespace strata::cli {

std::optional<std::string> LaunchRateAdvice(const core::Profile& profile, const LaunchRateThresholds& t) {
  std::optional<size_t> gpu_time = core::FindMetric(profile, "gpu_time");
  std::optional<std::string> duration = profile.meta("duration_ns");
  if (!gpu_time || !duration) return std::nullopt;
  double seconds = std::atof(duration->c_str()) / 1e9;
  double operations = double(profile.total_count(*gpu_time));
  if (seconds <= 0 || operations <= 0 || operations < t.min_operations || operations / seconds < t.min_per_second) return std::nullopt;
  char line[400];
  std::snprintf(line, sizeof(line),
                "%.0f GPU operations in %.1f s (%.0f a second): tracing every launch costs most on "
                "launch-bound programs; --gpu-sampling 100/1000 traces 100 ms of every second (scaled), "
                "--capture-range cudaProfilerApi only what the program brackets",
                operations, seconds, operations / seconds);
  std::string advice = line;
  // Operators from RecordFunction: torch builds one at every operator call, most of which launch
  // nothing on a decoding loop (on the H200 that was about 9 points of GPT-2 decoding's step).
  if (profile.meta("operators").value_or("").rfind("recorded:", 0) == 0)
    advice += "; --operators frames spares torch's callback at every operator (operators named from native "
              "frames, backward operators not linked to their forward line)";
  return advice;
}

}  // namespace strata::cli
