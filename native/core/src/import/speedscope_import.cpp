// strata/core/speedscope_import.h: one tree for every profile of the file.
#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "strata/core/api.h"
#include "strata/core/speedscope_import.h"
#include "strata/format/writer.h"

namespace strata::core {
namespace {

namespace fmt = strata::format;
using nlohmann::json;

// Inverse of the export's unit names (speedscope's ValueUnit).
std::string StrataUnit(const std::string& unit) {
  if (unit == "nanoseconds") return "ns";
  if (unit == "microseconds") return "us";
  if (unit == "milliseconds") return "ms";
  if (unit == "seconds") return "s";
  if (unit == "bytes") return "bytes";
  return "count";
}

fmt::MetricStats One(double value) {
  fmt::MetricStats s;
  s.Add(value);
  return s;
}

// The node of `stack` (frame ids, outermost first): the writer interns children per
// (parent, frame), so equal stacks of different profiles share their nodes.
uint32_t NodeOf(fmt::ProfileWriter& w, const std::vector<uint32_t>& stack) {
  uint32_t node = 0;
  for (uint32_t frame : stack) node = w.Child(node, frame);
  return node;
}

[[noreturn]] void Bad(const std::string& profile, const std::string& why) {
  throw Error("not a valid speedscope file: profile '" + profile + "': " + why);
}

}  // namespace

bool LooksLikeSpeedscope(const std::string& text) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return false;
  const auto schema = doc.find("$schema");
  if (schema != doc.end() && schema->is_string() && schema->get<std::string>().find("speedscope") != std::string::npos)
    return true;
  return doc.contains("shared") && doc.contains("profiles");
}

std::vector<unsigned char> SpeedscopeToProfile(const std::string& text, const std::string& source) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw Error("not a speedscope file: not JSON");
  if (!doc.is_object() || !doc.contains("profiles") || !doc["profiles"].is_array() || !doc.contains("shared") ||
      !doc["shared"].is_object() || !doc["shared"].contains("frames") || !doc["shared"]["frames"].is_array())
    throw Error("not a speedscope file: no shared.frames and profiles arrays");
  if (doc["profiles"].empty()) throw Error("not a speedscope file: no profiles");

  fmt::ProfileWriter w;
  w.Meta("command", "strata import " + source);
  w.Meta("imported_from", "speedscope");
  if (doc.contains("name") && doc["name"].is_string()) w.Meta("speedscope_name", doc["name"].get<std::string>());

  std::vector<uint32_t> frames;
  for (const json& f : doc["shared"]["frames"]) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string())
      throw Error("not a valid speedscope file: a shared frame without a name");
    const std::string file = f.contains("file") && f["file"].is_string() ? f["file"].get<std::string>() : "";
    const uint32_t line = f.contains("line") && f["line"].is_number_unsigned() ? f["line"].get<uint32_t>() : 0;
    frames.push_back(w.Frame(fmt::FrameKind::kNative, fmt::kNone, 0, f["name"].get<std::string>(), file, line));
  }
  auto frame = [&](const json& index, const std::string& profile) {
    if (!index.is_number_unsigned() || index.get<uint64_t>() >= frames.size()) Bad(profile, "a frame index out of range");
    return frames[index.get<size_t>()];
  };

  std::map<std::string, size_t> names_used;
  for (const json& p : doc["profiles"]) {
    if (!p.is_object()) throw Error("not a valid speedscope file: a profile is not an object");
    std::string name = p.value("name", std::string("profile"));
    const std::string type = p.value("type", std::string());
    // Metric names are unique in a profile: a repeated profile name gets " (2)", " (3)".
    if (const size_t seen = names_used[name]++; seen > 0) name += " (" + std::to_string(seen + 1) + ")";
    const uint32_t metric = w.Metric(name, StrataUnit(p.value("unit", std::string("none"))));

    if (type == "sampled") {
      const auto samples = p.find("samples"), weights = p.find("weights");
      if (samples == p.end() || !samples->is_array() || weights == p.end() || !weights->is_array() ||
          samples->size() != weights->size())
        Bad(name, "samples and weights are not arrays of one length");
      for (size_t i = 0; i < samples->size(); ++i) {
        const json& stack = (*samples)[i];
        const json& weight = (*weights)[i];
        if (!stack.is_array() || !weight.is_number()) Bad(name, "a sample is not a stack with a numeric weight");
        std::vector<uint32_t> path;
        for (const json& index : stack) path.push_back(frame(index, name));
        w.AddStats(NodeOf(w, path), metric, One(weight.get<double>()));
      }
    } else if (type == "evented") {
      const auto events = p.find("events");
      if (events == p.end() || !events->is_array()) Bad(name, "no events array");
      std::vector<uint32_t> open;
      double last = p.value("startValue", 0.0);
      for (const json& e : *events) {
        if (!e.is_object() || !e.contains("at") || !e["at"].is_number() || !e.contains("frame"))
          Bad(name, "an event without its time or frame");
        const double at = e["at"].get<double>();
        if (at < last) Bad(name, "events go back in time");
        if (!open.empty() && at > last) w.AddStats(NodeOf(w, open), metric, One(at - last));
        last = at;
        const std::string kind = e.value("type", std::string());
        const uint32_t f = frame(e["frame"], name);
        if (kind == "O") {
          open.push_back(f);
        } else if (kind == "C") {
          if (open.empty() || open.back() != f) Bad(name, "a close event that does not close the innermost open frame");
          open.pop_back();
        } else {
          Bad(name, "an event of type '" + kind + "' (O or C)");
        }
      }
      if (!open.empty()) Bad(name, "frames left open at the end");
    } else {
      Bad(name, "type '" + type + "' (sampled or evented)");
    }
  }
  return w.Serialize();
}

}  // namespace strata::core
