// strata/core/pprof_import.h: a protobuf wire-format reader for the fields profile.proto's
// Profile, ValueType, Sample, Location, Line and Function carry (others skipped), then the tree.
#include <cstdio>
#include <unordered_map>

#include "../export/gzip.h"
#include "strata/core/api.h"
#include "strata/core/pprof_import.h"
#include "strata/format/writer.h"

namespace strata::core {
namespace {

namespace fmt = strata::format;

[[noreturn]] void Bad(const std::string& why) { throw Error("not a pprof profile: " + why); }

// One message's fields, in order: what Next() returns until the message ends.
class WireReader {
 public:
  WireReader(const char* p, size_t n) : p_(p), end_(p + n) {}
  bool Next() {
    if (p_ == end_) return false;
    const uint64_t tag = Varint();
    field_ = uint32_t(tag >> 3);
    wire_ = uint32_t(tag & 7);
    switch (wire_) {
      case 0: value_ = Varint(); break;
      case 1: Skip(8); break;
      case 2: {
        const uint64_t n = Varint();
        if (n > uint64_t(end_ - p_)) Bad("a length past the end");
        bytes_ = p_;
        size_ = size_t(n);
        p_ += n;
        break;
      }
      case 5: Skip(4); break;
      default: Bad("wire type " + std::to_string(wire_));
    }
    return true;
  }
  uint32_t field() const { return field_; }
  bool is_varint() const { return wire_ == 0; }
  bool is_bytes() const { return wire_ == 2; }
  uint64_t value() const { return value_; }
  WireReader Sub() const { return WireReader(bytes_, size_); }
  std::string Text() const { return std::string(bytes_, size_); }
  // A repeated varint field: packed (bytes) or one value per occurrence.
  void Varints(std::vector<uint64_t>* out) const {
    if (is_varint()) {
      out->push_back(value_);
      return;
    }
    WireReader r = Sub();
    while (r.p_ != r.end_) out->push_back(r.Varint());
  }

 private:
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) Bad("a varint past the end");
      const uint8_t b = uint8_t(*p_++);
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    Bad("a varint over 10 bytes");
  }
  void Skip(size_t n) {
    if (n > size_t(end_ - p_)) Bad("a field past the end");
    p_ += n;
  }
  const char* p_;
  const char* end_;
  uint32_t field_ = 0, wire_ = 0;
  uint64_t value_ = 0;
  const char* bytes_ = nullptr;
  size_t size_ = 0;
};

struct ValueType { int64_t type = 0, unit = 0; };
struct Sample { std::vector<uint64_t> locations, values; };
struct Line { uint64_t function = 0; int64_t line = 0; };
struct Location { uint64_t address = 0; std::vector<Line> lines; };
struct Function { int64_t name = 0, filename = 0; };

std::string StrataUnit(const std::string& unit) {
  if (unit == "nanoseconds") return "ns";
  if (unit == "bytes") return "bytes";
  return unit.empty() ? "count" : unit;
}

}  // namespace

bool LooksLikeGzip(const std::string& bytes) {
  return bytes.size() >= 2 && uint8_t(bytes[0]) == 0x1f && uint8_t(bytes[1]) == 0x8b;
}

std::vector<unsigned char> PprofToProfile(const std::string& gzipped, const std::string& source) {
  std::string raw;
  try {
    raw = detail::Gunzip(gzipped);
  } catch (const Error& e) {
    Bad(e.what());
  }
  std::vector<ValueType> types;
  std::vector<Sample> samples;
  std::unordered_map<uint64_t, Location> locations;
  std::unordered_map<uint64_t, Function> functions;
  std::vector<std::string> strings;
  for (WireReader r(raw.data(), raw.size()); r.Next();) {
    switch (r.field()) {
      case 1: {  // sample_type
        if (!r.is_bytes()) Bad("sample_type is not a message");
        ValueType t;
        for (WireReader m = r.Sub(); m.Next();) {
          if (m.field() == 1 && m.is_varint()) t.type = int64_t(m.value());
          if (m.field() == 2 && m.is_varint()) t.unit = int64_t(m.value());
        }
        types.push_back(t);
        break;
      }
      case 2: {  // sample
        if (!r.is_bytes()) Bad("sample is not a message");
        Sample s;
        for (WireReader m = r.Sub(); m.Next();) {
          if (m.field() == 1) m.Varints(&s.locations);
          if (m.field() == 2) m.Varints(&s.values);
        }
        samples.push_back(std::move(s));
        break;
      }
      case 4: {  // location
        if (!r.is_bytes()) Bad("location is not a message");
        uint64_t id = 0;
        Location loc;
        for (WireReader m = r.Sub(); m.Next();) {
          if (m.field() == 1 && m.is_varint()) id = m.value();
          if (m.field() == 3 && m.is_varint()) loc.address = m.value();
          if (m.field() == 4 && m.is_bytes()) {
            Line line;
            for (WireReader l = m.Sub(); l.Next();) {
              if (l.field() == 1 && l.is_varint()) line.function = l.value();
              if (l.field() == 2 && l.is_varint()) line.line = int64_t(l.value());
            }
            loc.lines.push_back(line);
          }
        }
        locations[id] = std::move(loc);
        break;
      }
      case 5: {  // function
        if (!r.is_bytes()) Bad("function is not a message");
        uint64_t id = 0;
        Function fn;
        for (WireReader m = r.Sub(); m.Next();) {
          if (m.field() == 1 && m.is_varint()) id = m.value();
          if (m.field() == 2 && m.is_varint()) fn.name = int64_t(m.value());
          if (m.field() == 4 && m.is_varint()) fn.filename = int64_t(m.value());
        }
        functions[id] = fn;
        break;
      }
      case 6:  // string_table
        if (!r.is_bytes()) Bad("a string_table entry is not a string");
        strings.push_back(r.Text());
        break;
      default: break;
    }
  }
  if (strings.empty() || !strings[0].empty()) Bad("no string table starting with \"\"");
  if (types.empty()) Bad("no sample types");
  auto str = [&](int64_t i) -> const std::string& {
    if (i < 0 || size_t(i) >= strings.size()) Bad("a string index out of range");
    return strings[size_t(i)];
  };

  fmt::ProfileWriter w;
  w.Meta("command", "strata import " + source);
  w.Meta("imported_from", "pprof");
  std::vector<uint32_t> metrics;
  for (const ValueType& t : types) metrics.push_back(w.Metric(str(t.type), StrataUnit(str(t.unit))));

  // A location's frames, outermost first: pprof lists an inlined location's lines innermost first.
  std::unordered_map<uint64_t, std::vector<uint32_t>> frames_of;
  auto frames = [&](uint64_t id) -> const std::vector<uint32_t>& {
    auto it = frames_of.find(id);
    if (it != frames_of.end()) return it->second;
    auto loc = locations.find(id);
    if (loc == locations.end()) Bad("a sample names location " + std::to_string(id) + ", which is not there");
    std::vector<uint32_t> out;
    for (auto l = loc->second.lines.rbegin(); l != loc->second.lines.rend(); ++l) {
      auto fn = functions.find(l->function);
      if (fn == functions.end()) Bad("a line names function " + std::to_string(l->function) + ", which is not there");
      out.push_back(w.Frame(fmt::FrameKind::kNative, fmt::kNone, 0, str(fn->second.name), str(fn->second.filename),
                            uint32_t(l->line > 0 ? l->line : 0)));
    }
    if (out.empty()) {  // an address only: its hex, as pprof shows it
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(loc->second.address));
      out.push_back(w.Frame(fmt::FrameKind::kNative, fmt::kNone, 0, hex, "", 0));
    }
    return frames_of.emplace(id, std::move(out)).first->second;
  };
  for (const Sample& s : samples) {
    if (s.values.size() != types.size()) Bad("a sample's value count differs from the sample types'");
    uint32_t node = 0;
    for (auto id = s.locations.rbegin(); id != s.locations.rend(); ++id)  // stored leaf first
      for (uint32_t f : frames(*id)) node = w.Child(node, f);
    for (size_t k = 0; k < metrics.size(); ++k) {
      if (s.values[k] == 0) continue;
      fmt::MetricStats stats;
      stats.Add(double(int64_t(s.values[k])));
      w.AddStats(node, metrics[k], stats);
    }
  }
  return w.Serialize();
}

}  // namespace strata::core
