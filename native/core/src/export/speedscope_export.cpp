// One "sampled" profile per additive metric over one shared frame list: speedscope shows one
// profile at a time and switches between them, so each metric is a choice in its menu. Samples
// are call paths outermost first with the node's self value as weight.
#include "speedscope_export.h"

#include <nlohmann/json.hpp>

#include "call_path_samples.h"

namespace strata::core::detail {
namespace {

// speedscope's ValueUnit enumeration; anything else is shown as a plain number.
const char* SpeedscopeUnit(const std::string& unit) {
  if (unit == "ns") return "nanoseconds";
  if (unit == "us") return "microseconds";
  if (unit == "ms") return "milliseconds";
  if (unit == "s") return "seconds";
  if (unit == "bytes") return "bytes";
  return "none";
}

}  // namespace

std::string ExportSpeedscope(const Profile& profile) {
  const CallPathSamples data = CollectCallPathSamples(profile);
  const auto& frames = *data.frames;

  // Only frames some sample reaches, numbered in order of first use.
  std::vector<int64_t> index_of(frames.size(), -1);
  nlohmann::json shared_frames = nlohmann::json::array();
  std::vector<std::vector<int64_t>> stacks;
  stacks.reserve(data.samples.size());
  for (const CallPathSample& s : data.samples) {
    std::vector<int64_t> stack;
    for (uint32_t frame : s.path) {
      if (index_of[frame] < 0) {
        const FrameInfo& f = frames[frame];
        nlohmann::json j = {{"name", ExportFrameName(f)}};
        if (!f.file.empty()) j["file"] = f.file;
        if (f.line != 0) j["line"] = f.line;
        index_of[frame] = int64_t(shared_frames.size());
        shared_frames.push_back(std::move(j));
      }
      stack.push_back(index_of[frame]);
    }
    stacks.push_back(std::move(stack));
  }

  nlohmann::json profiles = nlohmann::json::array();
  for (size_t k = 0; k < data.metrics.size(); ++k) {
    const MetricInfo& metric = profile.metrics()[data.metrics[k]];
    nlohmann::json samples = nlohmann::json::array(), weights = nlohmann::json::array();
    double total = 0;
    for (size_t i = 0; i < data.samples.size(); ++i) {
      const double w = data.samples[i].values[k];
      if (w == 0) continue;
      samples.push_back(stacks[i]);
      weights.push_back(w);
      total += w;
    }
    profiles.push_back({{"type", "sampled"},
                        {"name", metric.name},
                        {"unit", SpeedscopeUnit(metric.unit)},
                        {"startValue", 0},
                        {"endValue", total},
                        {"samples", std::move(samples)},
                        {"weights", std::move(weights)}});
  }

  const nlohmann::json file = {
      {"$schema", "https://www.speedscope.app/file-format-schema.json"},
      {"name", profile.meta("command").value_or("strata profile")},
      {"exporter", "strata"},
      {"activeProfileIndex", 0},
      {"shared", {{"frames", std::move(shared_frames)}}},
      {"profiles", std::move(profiles)}};
  return file.dump();
}

}  // namespace strata::core::detail
