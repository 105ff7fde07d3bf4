// Minimal reader of a version-1 profile for the runtime's own tests (the full reader lives in
// native/core; the tests deliberately do not depend on it). Validates header, size, checksum.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "strata/format/layout.h"

namespace strata::rt::test {

struct Profile {
  std::vector<std::string> strings;
  std::map<std::string, std::string> meta;
  std::vector<format::ModuleRecord> modules;
  std::vector<format::FrameRecord> frames;
  std::vector<format::NodeRecord> nodes;
  std::vector<format::MetricDescriptor> metrics;
  std::vector<format::NodeMetricRecord> node_metrics;

  const std::string& Str(uint32_t i) const {
    static const std::string empty;
    return i < strings.size() ? strings[i] : empty;
  }
  // Frames from the node up to (excluding) the root, leaf first.
  std::vector<const format::FrameRecord*> PathOf(uint32_t node) const {
    std::vector<const format::FrameRecord*> out;
    while (node != 0 && node < nodes.size()) {
      out.push_back(&frames[nodes[node].frame]);
      node = nodes[node].parent;
    }
    return out;
  }
};

template <typename T>
bool ReadRecords(const std::vector<unsigned char>& b, const format::SectionEntry& s, std::vector<T>* out) {
  if (s.record_size != sizeof(T) || s.offset + s.count * sizeof(T) > b.size()) return false;
  out->resize(s.count);
  if (s.count) memcpy(out->data(), b.data() + s.offset, s.count * sizeof(T));
  return true;
}

inline bool ReadProfile(const std::string& path, Profile* p, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) { *err = "cannot open " + path; return false; }
  std::vector<unsigned char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (b.size() < sizeof(format::FileHeader)) { *err = "short file"; return false; }
  format::FileHeader h;
  memcpy(&h, b.data(), sizeof(h));
  if (memcmp(h.magic, format::kMagic, 8) != 0) { *err = "bad magic"; return false; }
  if (h.version != format::kVersion) { *err = "bad version"; return false; }
  if (h.file_size != b.size()) { *err = "size mismatch"; return false; }
  if (format::Fnv1a(b.data() + sizeof(h), b.size() - sizeof(h)) != h.checksum) { *err = "bad checksum"; return false; }
  if (h.section_table_offset + uint64_t(h.section_count) * sizeof(format::SectionEntry) > b.size()) { *err = "bad table"; return false; }
  for (uint32_t i = 0; i < h.section_count; ++i) {
    format::SectionEntry s;
    memcpy(&s, b.data() + h.section_table_offset + i * sizeof(s), sizeof(s));
    if (s.offset + s.size > b.size()) { *err = "bad section"; return false; }
    switch (format::SectionKind(s.kind)) {
      case format::SectionKind::kStrings: {
        format::StringsHeader sh;
        memcpy(&sh, b.data() + s.offset, sizeof(sh));
        const unsigned char* offs = b.data() + s.offset + sizeof(sh);
        const unsigned char* blob = offs + 4ull * (sh.count + 1);
        for (uint32_t k = 0; k < sh.count; ++k) {
          uint32_t a, e;
          memcpy(&a, offs + 4ull * k, 4);
          memcpy(&e, offs + 4ull * (k + 1), 4);
          p->strings.emplace_back(reinterpret_cast<const char*>(blob) + a, e - a);
        }
        break;
      }
      case format::SectionKind::kMeta: {
        std::vector<format::MetaEntry> m;
        if (!ReadRecords(b, s, &m)) { *err = "bad meta"; return false; }
        for (auto& e : m) p->meta[p->Str(e.key)] = p->Str(e.value);  // strings come first
        break;
      }
      case format::SectionKind::kModules: if (!ReadRecords(b, s, &p->modules)) return false; break;
      case format::SectionKind::kFrames: if (!ReadRecords(b, s, &p->frames)) return false; break;
      case format::SectionKind::kNodes: if (!ReadRecords(b, s, &p->nodes)) return false; break;
      case format::SectionKind::kMetrics: if (!ReadRecords(b, s, &p->metrics)) return false; break;
      case format::SectionKind::kNodeMetrics: if (!ReadRecords(b, s, &p->node_metrics)) return false; break;
      default: break;
    }
  }
  return true;
}

}  // namespace strata::rt::test
