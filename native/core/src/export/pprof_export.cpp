// Layout: one sample type per additive metric (values rounded to integers, as pprof stores
// int64); one Location per distinct frame with one Line (function, line); one Function per
// (name, file); one Sample per tree node with self values, its location ids leaf first.
#include "pprof_export.h"

#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "call_path_samples.h"
#include "gzip.h"
#include "protobuf_writer.h"

namespace strata::core::detail {
namespace {

// Field numbers of perftools.profiles (pprof's profile.proto).
enum ProfileField : uint32_t {
  kSampleType = 1, kSample = 2, kLocation = 4, kFunction = 5, kStringTable = 6,
  kComment = 13, kDefaultSampleType = 14,
};
enum ValueTypeField : uint32_t { kValueTypeType = 1, kValueTypeUnit = 2 };
enum SampleField : uint32_t { kSampleLocationId = 1, kSampleValue = 2 };
enum LocationField : uint32_t { kLocationId = 1, kLocationLine = 4 };
enum LineField : uint32_t { kLineFunctionId = 1, kLineLine = 2 };
enum FunctionField : uint32_t { kFunctionId = 1, kFunctionName = 2, kFunctionSystemName = 3, kFunctionFilename = 4 };

class StringTable {
 public:
  StringTable() { Index(""); }  // string_table[0] must be ""
  int64_t Index(const std::string& s) {
    auto [it, added] = index_.emplace(s, int64_t(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, int64_t> index_;
  std::vector<std::string> strings_;
};

// pprof's unit names: its tools convert "nanoseconds" and "bytes" for display.
std::string PprofUnit(const std::string& unit) {
  if (unit == "ns") return "nanoseconds";
  if (unit == "us") return "microseconds";
  if (unit == "ms") return "milliseconds";
  if (unit == "s") return "seconds";
  return unit.empty() ? "count" : unit;
}

// What a frame is called in pprof: its name, or its kind where it has none (the root of a
// stored path can be an unnamed thread); a fused kernel's with its lines.
std::string FunctionName(const FrameInfo& f) { return ExportFrameName(f); }

}  // namespace

std::string ExportPprof(const Profile& profile) {
  const CallPathSamples data = CollectCallPathSamples(profile);
  const auto& frames = *data.frames;
  StringTable strings;
  ProtobufWriter out;

  for (size_t m : data.metrics) {
    ProtobufWriter type;
    type.Int64(kValueTypeType, strings.Index(profile.metrics()[m].name));
    type.Int64(kValueTypeUnit, strings.Index(PprofUnit(profile.metrics()[m].unit)));
    out.Message(kSampleType, type);
  }

  // Locations and functions only for frames some sample reaches.
  std::vector<uint64_t> location_of(frames.size(), 0);
  std::map<std::tuple<std::string, std::string>, uint64_t> function_ids;
  ProtobufWriter locations, functions;
  auto location = [&](uint32_t frame) {
    if (location_of[frame] != 0) return location_of[frame];
    const FrameInfo& f = frames[frame];
    const std::string name = FunctionName(f);
    auto [it, added] = function_ids.emplace(std::make_tuple(name, f.file), function_ids.size() + 1);
    if (added) {
      ProtobufWriter fn;
      fn.Varint(kFunctionId, it->second);
      fn.Int64(kFunctionName, strings.Index(name));
      fn.Int64(kFunctionSystemName, strings.Index(name));
      fn.Int64(kFunctionFilename, strings.Index(f.file));
      functions.Message(kFunction, fn);
    }
    const uint64_t id = uint64_t(frame) + 1;
    ProtobufWriter line;
    line.Varint(kLineFunctionId, it->second);
    line.Int64(kLineLine, int64_t(f.line));
    ProtobufWriter loc;
    loc.Varint(kLocationId, id);
    loc.Message(kLocationLine, line);
    locations.Message(kLocation, loc);
    location_of[frame] = id;
    return id;
  };

  for (const CallPathSample& s : data.samples) {
    std::vector<uint64_t> ids;
    ids.reserve(s.path.size());
    for (auto it = s.path.rbegin(); it != s.path.rend(); ++it) ids.push_back(location(*it));  // leaf first
    std::vector<uint64_t> values;
    for (double v : s.values) values.push_back(uint64_t(int64_t(std::llround(v))));
    ProtobufWriter sample;
    sample.PackedVarints(kSampleLocationId, ids);
    sample.PackedVarints(kSampleValue, values);
    out.Message(kSample, sample);
  }

  // Message fields may come in any order; the string table last, once every string is known.
  std::string bytes = out.bytes() + locations.bytes() + functions.bytes();
  ProtobufWriter tail;
  if (auto command = profile.meta("command")) tail.Int64(kComment, strings.Index("command: " + *command));
  if (!data.metrics.empty()) tail.Int64(kDefaultSampleType, strings.Index(profile.metrics()[data.metrics[0]].name));
  for (const std::string& s : strings.strings()) tail.Bytes(kStringTable, s);
  bytes += tail.bytes();
  return Gzip(bytes);
}

}  // namespace strata::core::detail
