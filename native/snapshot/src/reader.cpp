#include "strata/snapshot/reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "byte_codec.h"

namespace strata::snapshot {
namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File OpenFile(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw Error("cannot open " + path + ": " + std::strerror(errno));
  return f;
}

const char* NameOf(uint32_t tag) {
  switch (Tag(tag)) {
    case Tag::kLaunch: return "launch";
    case Tag::kImage: return "image";
    case Tag::kParams: return "parameters";
    case Tag::kRegions: return "regions";
    case Tag::kBefore: return "before";
    case Tag::kAfter: return "after";
    case Tag::kTiming: return "timing";
    case Tag::kPrelude: return "prelude";
    case Tag::kPreludeImage: return "prelude image";
    case Tag::kEnd: return "end";
  }
  return "unknown";
}

void ReadConfig(codec::In& in, LaunchConfig* c, std::vector<LaunchAttribute>* attributes) {
  for (uint32_t& v : c->grid) v = in.Pod<uint32_t>();
  for (uint32_t& v : c->block) v = in.Pod<uint32_t>();
  for (uint32_t& v : c->cluster) v = in.Pod<uint32_t>();
  c->shared_bytes = in.Pod<uint32_t>();
  c->ex = in.Pod<uint32_t>() != 0;
  attributes->resize(in.Count(4 + 64));
  for (auto& a : *attributes) {
    a.id = in.Pod<uint32_t>();
    in.Need(sizeof a.value);
    for (uint8_t& v : a.value) v = in.Pod<uint8_t>();
  }
  for (int i = 0; i < 3; ++i)
    if (!c->grid[i] || !c->block[i]) in.Bad("a zero grid or block dimension");
}

void ReadParams(codec::In& in, std::vector<Param>* params, std::string* buffer, std::vector<PointerWord>* pointers) {
  params->resize(in.Count(8));
  for (auto& p : *params) {
    p.offset = in.Pod<uint32_t>();
    p.size = in.Pod<uint32_t>();
  }
  *buffer = in.Str();
  pointers->resize(in.Count(28));
  for (auto& w : *pointers) {
    w.in_region = in.Pod<int32_t>();
    w.offset = in.Pod<uint32_t>();
    w.value = in.Pod<uint64_t>();
    uint32_t k = in.Pod<uint32_t>();
    if (k < 1 || k > 3) in.Bad("a pointer of unknown kind");
    w.kind = WordKind(k);
    w.region = in.Pod<int32_t>();
    uint32_t e = in.Pod<uint32_t>();
    if (e > 3) in.Bad("a pointer of unknown encoding");
    w.encoding = Encoding(e);
  }
  for (const auto& p : *params)
    if (uint64_t(p.offset) + p.size > buffer->size()) in.Bad("a parameter beyond the buffer");
}

void ParsePreludes(const std::string& b, Snapshot* s) {
  codec::In in(b, "prelude");
  s->preludes_why_not = in.Str();
  s->preludes.resize(in.Count(8));
  for (Prelude& q : s->preludes) {
    q.kernel = in.Str();
    if (q.kernel.empty()) in.Bad("no kernel name");
    ReadConfig(in, &q.launch, &q.launch_attributes);
    ReadParams(in, &q.params, &q.param_buffer, &q.pointers);
    q.image = in.Pod<int32_t>();
    if (q.image < -1) in.Bad("an image index below -1");
    for (const auto& w : q.pointers)
      if (w.in_region != -1) in.Bad("a pointer outside a prelude's parameters");
  }
}

void ParseLaunch(const std::string& b, Snapshot* s) {
  codec::In in(b, "launch");
  s->device.name = in.Str();
  s->device.cc_major = in.Pod<int32_t>();
  s->device.cc_minor = in.Pod<int32_t>();
  s->device.driver_version = in.Pod<int32_t>();
  s->device.total_memory = in.Pod<uint64_t>();
  s->kernel = in.Str();
  s->launch_index = in.Pod<uint64_t>();
  s->command = in.Str();
  s->pid = in.Pod<int32_t>();
  s->image_candidates = in.Pod<uint32_t>();
  ReadConfig(in, &s->launch, &s->launch_attributes);
  s->function_attributes.resize(in.Count(8));
  for (auto& a : s->function_attributes) {
    a.id = in.Pod<int32_t>();
    a.value = in.Pod<int32_t>();
  }
  if (s->kernel.empty()) in.Bad("no kernel name");
}

void ParseParams(const std::string& b, Snapshot* s) {
  codec::In in(b, "parameters");
  ReadParams(in, &s->params, &s->param_buffer, &s->pointers);
}

void ParseRegions(const std::string& b, Snapshot* s) {
  codec::In in(b, "regions");
  s->bytes_bound = in.Pod<uint64_t>();
  s->regions.resize(in.Count(24));
  for (auto& g : s->regions) {
    g.base = in.Pod<uint64_t>();
    g.size = in.Pod<uint64_t>();
    uint32_t k = in.Pod<uint32_t>();
    if (k < 1 || k > 2) in.Bad("a region of unknown memory kind");
    g.kind = MemoryKind(k);
    g.saved = in.Pod<uint32_t>() != 0;
    if (!g.size || g.base + g.size < g.base) in.Bad("an empty or wrapping region");
  }
}

// Cross-section checks, after every section was read.
void Validate(const Snapshot& s, const std::string& path) {
  auto bad = [&](const std::string& why) { throw Error(path + ": not a valid snapshot: " + why); };
  for (const auto& w : s.pointers) {
    if (w.in_region >= int32_t(s.regions.size())) bad("a pointer found in a region that does not exist");
    if (w.kind == WordKind::kDevice && (w.region < 0 || w.region >= int32_t(s.regions.size())))
      bad("a pointer into a region that does not exist");
  }
  for (const Prelude& q : s.preludes) {
    for (const auto& w : q.pointers)
      if (w.kind == WordKind::kDevice && (w.region < 0 || w.region >= int32_t(s.regions.size())))
        bad("a prelude's pointer into a region that does not exist");
    if (q.image >= int32_t(s.prelude_images.size())) bad("a prelude's module image is missing");
  }
  for (size_t i = 0; i < s.regions.size(); ++i) {
    const Region& g = s.regions[i];
    if (!g.saved) continue;
    if (!s.before[i].present || !s.after[i].present)
      bad("region " + std::to_string(i) + " lacks its " + (s.before[i].present ? "after" : "before") + " contents");
    if (s.before[i].size != g.size || s.after[i].size != g.size) bad("region " + std::to_string(i) + "'s contents differ in size from the region");
  }
}

}  // namespace

Snapshot Read(const std::string& path) {
  File f = OpenFile(path);
  if (std::fseek(f.get(), 0, SEEK_END) != 0) throw Error("cannot seek " + path);
  const uint64_t file_size = uint64_t(std::ftell(f.get()));
  std::rewind(f.get());
  char magic[8];
  uint32_t head[2];
  if (std::fread(magic, 1, 8, f.get()) != 8 || std::memcmp(magic, kMagic, 8) != 0)
    throw Error(path + ": not a Strata snapshot (no STRASNAP magic)");
  if (std::fread(head, 1, sizeof head, f.get()) != sizeof head) throw Error(path + ": cut short in its header");
  if (head[0] != kVersion)
    throw Error(path + ": snapshot format version " + std::to_string(head[0]) + ", this strata reads version " +
                std::to_string(kVersion));
  Snapshot s;
  s.version = head[0];
  uint64_t at = 16;
  uint32_t sections = 0;
  bool launch = false, regions = false, params = false, image = false, end = false, prelude = false;
  std::vector<std::pair<uint32_t, DataRef>> before, after;
  while (!end) {
    uint32_t sh[2];
    uint64_t length = 0;
    if (at == file_size)
      throw Error(path + ": cut short after " + std::to_string(at) + " bytes (no end section: the writer did not finish)");
    if (file_size - at < 16 || std::fread(sh, 1, sizeof sh, f.get()) != sizeof sh ||
        std::fread(&length, 1, sizeof length, f.get()) != sizeof length)
      throw Error(path + ": cut short in a section header at byte " + std::to_string(at));
    at += 16;
    if (length > file_size - at)
      throw Error(path + ": cut short: the " + NameOf(sh[0]) + " section at byte " + std::to_string(at - 16) + " needs " +
                  std::to_string(length) + " bytes, the file has " + std::to_string(file_size - at) + " left");
    const Tag tag = Tag(sh[0]);
    DataRef ref{at, length, true};
    auto payload = [&]() {
      std::string b(length, '\0');
      if (length && std::fread(b.data(), 1, length, f.get()) != length) throw Error(path + ": read failed");
      return b;
    };
    auto parse = [&](void (*fn)(const std::string&, Snapshot*)) {
      try {
        fn(payload(), &s);
      } catch (const Error& e) {
        throw Error(path + ": " + e.what());
      }
    };
    switch (tag) {
      case Tag::kLaunch: parse(ParseLaunch); launch = true; break;
      case Tag::kParams: parse(ParseParams); params = true; break;
      case Tag::kRegions: parse(ParseRegions); regions = true; break;
      case Tag::kImage: s.image = ref; image = true; break;
      case Tag::kPrelude: parse(ParsePreludes); prelude = true; break;
      case Tag::kPreludeImage: s.prelude_images.push_back(ref); break;
      case Tag::kTiming: {
        std::string b = payload();
        codec::In in(b, "timing");
        s.in_run_ns = in.Pod<uint64_t>();
        break;
      }
      case Tag::kBefore:
      case Tag::kAfter: {
        uint32_t rh[2];
        if (length < sizeof rh || std::fread(rh, 1, sizeof rh, f.get()) != sizeof rh)
          throw Error(path + ": the " + std::string(NameOf(sh[0])) + " section is malformed: no region index");
        DataRef d{at + sizeof rh, length - sizeof rh, true};
        (tag == Tag::kBefore ? before : after).emplace_back(rh[0], d);
        break;
      }
      case Tag::kEnd: {
        std::string b = payload();
        codec::In in(b, "end");
        if (in.Pod<uint64_t>() != sections) throw Error(path + ": not a valid snapshot: the end section counts other sections");
        end = true;
        break;
      }
      default: break;  // a later version's section: skipped
    }
    ++sections;
    at += length;
    if (std::fseek(f.get(), long(at), SEEK_SET) != 0) throw Error("cannot seek " + path);
  }
  if (!launch || !params || !regions || !image)
    throw Error(path + ": not a valid snapshot: it lacks the " +
                std::string(!launch ? "launch" : !params ? "parameters" : !regions ? "regions" : "image") + " section");
  if (!prelude) s.preludes_why_not = "the snapshot was taken by a runtime that did not record the launches before it";
  s.before.assign(s.regions.size(), DataRef{});
  s.after.assign(s.regions.size(), DataRef{});
  for (auto* list : {&before, &after})
    for (auto& [i, d] : *list) {
      if (i >= s.regions.size()) throw Error(path + ": not a valid snapshot: contents of region " + std::to_string(i) + ", which does not exist");
      (list == &before ? s.before : s.after)[i] = d;
    }
  Validate(s, path);
  return s;
}

void ReadData(const std::string& path, const DataRef& ref, void* out) {
  if (!ref.present) throw Error(path + ": the contents asked for are not in the snapshot");
  File f = OpenFile(path);
  if (std::fseek(f.get(), long(ref.offset), SEEK_SET) != 0 || std::fread(out, 1, ref.size, f.get()) != ref.size)
    throw Error(path + ": cannot read " + std::to_string(ref.size) + " bytes at " + std::to_string(ref.offset));
}

std::string ReadData(const std::string& path, const DataRef& ref) {
  std::string b(ref.size, '\0');
  ReadData(path, ref, b.data());
  return b;
}

}  // namespace strata::snapshot
