#include "strata/format/reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace strata::format {

namespace {

[[noreturn]] void Fail(const std::string& msg) { throw ReadError(msg); }
[[noreturn]] void Corrupt(const std::string& msg) { Fail("corrupt profile: " + msg); }

std::string U(uint64_t v) { return std::to_string(v); }

bool MulOverflows(uint64_t a, uint64_t b, uint64_t* out) { return __builtin_mul_overflow(a, b, out); }
bool AddOverflows(uint64_t a, uint64_t b, uint64_t* out) { return __builtin_add_overflow(a, b, out); }

template <typename T>
Span<T> Records(const unsigned char* data, const SectionEntry* s, const char* what) {
  if (s == nullptr) return {};
  if (s->record_size != sizeof(T))
    Corrupt(std::string(what) + " section has record size " + U(s->record_size) + ", expected " +
            U(sizeof(T)));
  uint64_t bytes;
  if (MulOverflows(s->count, sizeof(T), &bytes) || bytes != s->size)
    Corrupt(std::string(what) + " section holds " + U(s->size) + " bytes, not " + U(s->count) +
            " records of " + U(sizeof(T)));
  return Span<T>{reinterpret_cast<const T*>(data + s->offset), size_t(s->count)};
}

}  // namespace

const char* FrameKindName(uint32_t kind) {
  switch (FrameKind(kind)) {
    case FrameKind::kRoot: return "root";
    case FrameKind::kPython: return "python";
    case FrameKind::kNative: return "native";
    case FrameKind::kOperator: return "operator";
    case FrameKind::kGpuApi: return "gpu_api";
    case FrameKind::kKernel: return "kernel";
    case FrameKind::kPc: return "pc";
    case FrameKind::kRegion: return "region";
    case FrameKind::kThread: return "thread";
    case FrameKind::kProcess: return "process";
  }
  return nullptr;
}

const char* SectionKindName(uint32_t kind) {
  switch (SectionKind(kind)) {
    case SectionKind::kStrings: return "strings";
    case SectionKind::kMeta: return "meta";
    case SectionKind::kModules: return "modules";
    case SectionKind::kFrames: return "frames";
    case SectionKind::kNodes: return "nodes";
    case SectionKind::kMetrics: return "metrics";
    case SectionKind::kNodeMetrics: return "node metrics";
    case SectionKind::kBlobs: return "blobs";
    case SectionKind::kRegionLaunches: return "region launches";
    case SectionKind::kFrameSourceLines: return "frame source lines";
    case SectionKind::kGpuActivities: return "GPU activities";
    case SectionKind::kCollectives: return "collectives";
  }
  return nullptr;
}

const char* BlobKindName(uint32_t kind) {
  switch (BlobKind(kind)) {
    case BlobKind::kCubin: return "cubin";
    case BlobKind::kSassListing: return "sass_listing";
    case BlobKind::kRegionBuffer: return "region_buffer";
    case BlobKind::kRegionInfo: return "region_info";
  }
  return nullptr;
}

ProfileReader ProfileReader::Parse(const unsigned char* data, size_t size) {
  ProfileReader r;
  r.data_ = data;
  r.size_ = size;

  // --- Header -------------------------------------------------------------------------------
  if (size == 0) Fail("not a Strata profile: empty file");
  size_t magic_len = std::min(size, sizeof(kMagic));
  if (std::memcmp(data, kMagic, magic_len) != 0) Fail("not a Strata profile: bad magic");
  if (size < sizeof(FileHeader))
    Fail("truncated profile: file has " + U(size) + " bytes, the header alone needs " +
         U(sizeof(FileHeader)));
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0) Fail("internal error: profile buffer not 8-byte aligned");
  const auto* h = reinterpret_cast<const FileHeader*>(data);
  r.header_ = h;
  if (h->version > kVersion)
    Fail("profile format version " + U(h->version) + " is newer than this Strata supports (" +
         U(kVersion) + ")");
  if (h->version != kVersion) Fail("unsupported profile format version " + U(h->version));
  if (h->header_size != sizeof(FileHeader))
    Corrupt("header size is " + U(h->header_size) + ", expected " + U(sizeof(FileHeader)));
  if (h->file_size > size)
    Fail("truncated profile: header says " + U(h->file_size) + " bytes, file has " + U(size));
  if (h->file_size < size)
    Corrupt("header says " + U(h->file_size) + " bytes, file has " + U(size) +
            " (trailing bytes)");
  uint32_t sum = Fnv1a(data + sizeof(FileHeader), size - sizeof(FileHeader));
  if (sum != h->checksum) Corrupt("checksum mismatch (file damaged or modified)");

  // --- Section table ------------------------------------------------------------------------
  if (h->section_entry_size != sizeof(SectionEntry))
    Corrupt("section entry size is " + U(h->section_entry_size) + ", expected " +
            U(sizeof(SectionEntry)));
  uint64_t table_bytes, table_end;
  if (MulOverflows(h->section_count, sizeof(SectionEntry), &table_bytes) ||
      AddOverflows(h->section_table_offset, table_bytes, &table_end) ||
      h->section_table_offset < sizeof(FileHeader) || table_end > size)
    Corrupt("section table (" + U(h->section_count) + " entries at offset " +
            U(h->section_table_offset) + ") is outside the file");
  if (h->section_table_offset % 8 != 0) Corrupt("section table is not 8-byte aligned");
  r.sections_ = Span<SectionEntry>{
      reinterpret_cast<const SectionEntry*>(data + h->section_table_offset), h->section_count};

  struct Range { uint64_t begin, end; std::string what; };
  std::vector<Range> ranges;
  ranges.push_back({h->section_table_offset, table_end, "the section table"});
  const SectionEntry* known[13] = {};  // indexed by known kind (1..12)
  for (size_t i = 0; i < r.sections_.size; ++i) {
    const SectionEntry& s = r.sections_[i];
    const char* name = SectionKindName(s.kind);
    std::string what = name ? std::string(name) + " section" : "section " + U(i) + " (kind " + U(s.kind) + ")";
    uint64_t end;
    if (AddOverflows(s.offset, s.size, &end) || s.offset < sizeof(FileHeader) || end > size)
      Corrupt(what + " (offset " + U(s.offset) + ", " + U(s.size) + " bytes) is outside the file");
    if (s.offset % 8 != 0) Corrupt(what + " is not 8-byte aligned");
    if (name) {
      if (known[s.kind]) Corrupt("more than one " + what);
      known[s.kind] = &s;
    }
    ranges.push_back({s.offset, end, what});
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin || (a.begin == b.begin && a.end < b.end); });
  const Range* widest = nullptr;  // the non-empty range reaching furthest so far
  for (const Range& cur : ranges) {
    if (cur.end == cur.begin) continue;  // empty sections occupy no bytes
    if (widest && cur.begin < widest->end) Corrupt(widest->what + " overlaps " + cur.what);
    if (!widest || cur.end > widest->end) widest = &cur;
  }

  auto section = [&](SectionKind k) { return known[uint32_t(k)]; };
  for (SectionKind k : {SectionKind::kStrings, SectionKind::kFrames, SectionKind::kNodes})
    if (!section(k)) Corrupt(std::string("no ") + SectionKindName(uint32_t(k)) + " section");

  // --- Strings ------------------------------------------------------------------------------
  {
    const SectionEntry& s = *section(SectionKind::kStrings);
    if (s.record_size != 0) Corrupt("strings section has record size " + U(s.record_size) + ", expected 0");
    if (s.size < sizeof(StringsHeader)) Corrupt("strings section is too small for its header");
    const auto* sh = reinterpret_cast<const StringsHeader*>(data + s.offset);
    if (sh->count != s.count)
      Corrupt("strings section header says " + U(sh->count) + " strings, section table says " + U(s.count));
    uint64_t offsets_bytes = (uint64_t(sh->count) + 1) * 4;
    if (offsets_bytes > s.size - sizeof(StringsHeader))
      Corrupt("strings section (" + U(s.size) + " bytes) is too small for " + U(sh->count) + " string offsets");
    if (sh->count == 0) Corrupt("string table is empty (string 0 must be \"\")");
    const auto* offsets = reinterpret_cast<const uint32_t*>(data + s.offset + sizeof(StringsHeader));
    uint64_t blob_size = s.size - sizeof(StringsHeader) - offsets_bytes;
    if (offsets[0] != 0) Corrupt("first string offset is " + U(offsets[0]) + ", expected 0");
    for (uint32_t i = 0; i < sh->count; ++i)
      if (offsets[i + 1] < offsets[i])
        Corrupt("string offsets are not monotonic at string " + U(i));
    if (offsets[sh->count] != blob_size)
      Corrupt("string bytes end at " + U(offsets[sh->count]) + ", section holds " + U(blob_size));
    if (offsets[1] != 0) Corrupt("string 0 is not empty");
    r.string_count_ = sh->count;
    r.offsets_ = offsets;
    r.blob_ = reinterpret_cast<const char*>(offsets + sh->count + 1);
  }
  const uint64_t nstrings = r.string_count_;
  auto check_string = [&](uint32_t idx, const char* what, uint64_t i) {
    if (idx >= nstrings)
      Corrupt(std::string(what) + " " + U(i) + " refers to string " + U(idx) + ", the table has " + U(nstrings));
  };

  // --- Records ------------------------------------------------------------------------------
  r.meta_ = Records<MetaEntry>(data, section(SectionKind::kMeta), "meta");
  r.modules_ = Records<ModuleRecord>(data, section(SectionKind::kModules), "modules");
  r.frames_ = Records<FrameRecord>(data, section(SectionKind::kFrames), "frames");
  r.nodes_ = Records<NodeRecord>(data, section(SectionKind::kNodes), "nodes");
  r.metrics_ = Records<MetricDescriptor>(data, section(SectionKind::kMetrics), "metrics");
  r.node_metrics_ = Records<NodeMetricRecord>(data, section(SectionKind::kNodeMetrics), "node metrics");

  for (size_t i = 0; i < r.meta_.size; ++i) {
    check_string(r.meta_[i].key, "meta entry", i);
    check_string(r.meta_[i].value, "meta entry", i);
  }
  for (size_t i = 0; i < r.modules_.size; ++i) {
    check_string(r.modules_[i].path, "module", i);
    check_string(r.modules_[i].build_id, "module", i);
  }
  if (r.modules_.size >= kNone) Corrupt("too many modules");
  if (r.frames_.size >= kNone) Corrupt("too many frames");
  for (size_t i = 0; i < r.frames_.size; ++i) {
    const FrameRecord& f = r.frames_[i];
    if (!FrameKindName(f.kind)) Corrupt("frame " + U(i) + " has unknown kind " + U(f.kind));
    if (f.module != kNone && f.module >= r.modules_.size)
      Corrupt("frame " + U(i) + " refers to module " + U(f.module) + ", there are " + U(r.modules_.size));
    check_string(f.name, "frame", i);
    check_string(f.file, "frame", i);
    if ((f.flags & kFrameFlagIteration) && f.kind != uint32_t(FrameKind::kRegion))
      Corrupt("frame " + U(i) + " is marked as a loop iteration but is not a region frame");
    if ((f.flags & kFrameFlagTruncation) && (f.kind != uint32_t(FrameKind::kNative) || f.module != kNone))
      Corrupt("frame " + U(i) + " is marked as a stack truncation but is not a native frame without module");
    if ((f.flags & kFrameFlagOperatorNotRecorded) && f.kind != uint32_t(FrameKind::kNative))
      Corrupt("frame " + U(i) + " is marked as outside recorded operators but is not a native frame");
  }
  if (r.nodes_.size == 0) Corrupt("no root node");
  if (r.nodes_.size >= kNone) Corrupt("too many nodes");
  for (size_t i = 0; i < r.nodes_.size; ++i) {
    const NodeRecord& n = r.nodes_[i];
    if (i == 0) {
      if (n.parent != kNone) Corrupt("root node has a parent");
    } else if (n.parent >= i) {
      Corrupt("node " + U(i) + " has parent " + U(n.parent) + " (parents must precede children)");
    }
    if (n.frame >= r.frames_.size)
      Corrupt("node " + U(i) + " refers to frame " + U(n.frame) + ", there are " + U(r.frames_.size));
    bool is_root_kind = r.frames_[n.frame].kind == uint32_t(FrameKind::kRoot);
    if (i == 0 && !is_root_kind) Corrupt("root node's frame is not of kind root");
    if (i != 0 && is_root_kind) Corrupt("node " + U(i) + " has a root frame");
  }
  if (r.metrics_.size >= kNone) Corrupt("too many metrics");
  for (size_t i = 0; i < r.metrics_.size; ++i) {
    check_string(r.metrics_[i].name, "metric", i);
    check_string(r.metrics_[i].unit, "metric", i);
    for (size_t j = 0; j < i; ++j)
      if (r.metrics_[j].name == r.metrics_[i].name) Corrupt("metric " + U(i) + " repeats the name of metric " + U(j));
  }
  for (size_t i = 0; i < r.node_metrics_.size; ++i) {
    const NodeMetricRecord& m = r.node_metrics_[i];
    if (m.node >= r.nodes_.size)
      Corrupt("node metric record " + U(i) + " refers to node " + U(m.node) + ", there are " + U(r.nodes_.size));
    if (m.metric >= r.metrics_.size)
      Corrupt("node metric record " + U(i) + " refers to metric " + U(m.metric) + ", there are " + U(r.metrics_.size));
    if (i > 0) {
      const NodeMetricRecord& p = r.node_metrics_[i - 1];
      if (p.node > m.node || (p.node == m.node && p.metric >= m.metric))
        Corrupt("node metric records are not sorted by (node, metric) at record " + U(i));
    }
    if (!std::isfinite(m.sum) || !std::isfinite(m.min) || !std::isfinite(m.max) || !std::isfinite(m.m2) || m.m2 < 0)
      Corrupt("node metric record " + U(i) + " has a non-finite or negative-variance value");
  }

  // --- Blobs --------------------------------------------------------------------------------
  if (const SectionEntry* s = section(SectionKind::kBlobs)) {
    if (s->record_size != 0) Corrupt("blobs section has record size " + U(s->record_size) + ", expected 0");
    if (s->size < sizeof(BlobsHeader)) Corrupt("blobs section is too small for its header");
    const auto* bh = reinterpret_cast<const BlobsHeader*>(data + s->offset);
    if (bh->count != s->count)
      Corrupt("blobs section header says " + U(bh->count) + " blobs, section table says " + U(s->count));
    const uint64_t entries_bytes = uint64_t(bh->count) * sizeof(BlobEntry);  // u32 * 32: no overflow
    if (entries_bytes > s->size - sizeof(BlobsHeader))
      Corrupt("blobs section (" + U(s->size) + " bytes) is too small for " + U(bh->count) + " entries");
    const auto* entries = reinterpret_cast<const BlobEntry*>(data + s->offset + sizeof(BlobsHeader));
    const uint64_t data_size = s->size - sizeof(BlobsHeader) - entries_bytes;
    const unsigned char* blob_data = data + s->offset + sizeof(BlobsHeader) + entries_bytes;
    std::vector<uint32_t> order(bh->count);
    for (uint32_t i = 0; i < bh->count; ++i) {
      const BlobEntry& e = entries[i];
      order[i] = i;
      if (e.module >= r.modules_.size)
        Corrupt("blob " + U(i) + " refers to module " + U(e.module) + ", there are " + U(r.modules_.size));
      uint64_t end;
      if (AddOverflows(e.offset, e.size, &end) || end > data_size)
        Corrupt("blob " + U(i) + " (offset " + U(e.offset) + ", " + U(e.size) + " bytes) is outside the blobs section");
      if (e.offset % 8 != 0) Corrupt("blob " + U(i) + " is not 8-byte aligned");
      if (Fnv1a64(blob_data + e.offset, e.size) != e.hash) Corrupt("blob " + U(i) + " hash mismatch");
      for (uint32_t j = 0; j < i; ++j)  // few blobs (a handful per CUDA module)
        if (entries[j].module == e.module && entries[j].kind == e.kind)
          Corrupt("blob " + U(i) + " repeats (module " + U(e.module) + ", kind " + U(e.kind) + ") of blob " + U(j));
    }
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return entries[a].offset < entries[b].offset; });
    uint64_t reach = 0;
    uint32_t reach_by = 0;
    for (uint32_t i : order) {
      if (entries[i].size == 0) continue;
      if (reach > entries[i].offset) Corrupt("blob " + U(reach_by) + " overlaps blob " + U(i));
      if (entries[i].offset + entries[i].size > reach) { reach = entries[i].offset + entries[i].size; reach_by = i; }
    }
    r.blob_entries_ = Span<BlobEntry>{entries, bh->count};
    r.blob_data_ = reinterpret_cast<const char*>(blob_data);
  }

  // --- Region launches ----------------------------------------------------------------------
  if (const SectionEntry* s = section(SectionKind::kRegionLaunches)) {
    if (s->record_size != 0) Corrupt("region launches section has record size " + U(s->record_size) + ", expected 0");
    if (s->size < sizeof(RegionLaunchesHeader)) Corrupt("region launches section is too small for its header");
    const auto* rh = reinterpret_cast<const RegionLaunchesHeader*>(data + s->offset);
    r.region_launches_version_ = rh->version;
    if (rh->version == 0) Corrupt("region launches section has version 0");
    if (rh->version <= kRegionLaunchesVersion) {
      if (rh->launch_count != s->count)
        Corrupt("region launches section header says " + U(rh->launch_count) + " launches, section table says " + U(s->count));
      // u32 counts times 64 / 16 bytes: no overflow in 64 bits.
      const uint64_t launch_bytes = uint64_t(rh->launch_count) * sizeof(RegionLaunchRecord);
      const uint64_t name_bytes = uint64_t(rh->name_count) * sizeof(RegionNameRecord);
      const uint64_t room = s->size - sizeof(RegionLaunchesHeader);
      if (launch_bytes > room || name_bytes > room - launch_bytes)
        Corrupt("region launches section (" + U(s->size) + " bytes) is too small for " + U(rh->launch_count) +
                " launches and " + U(rh->name_count) + " names");
      const unsigned char* base = data + s->offset + sizeof(RegionLaunchesHeader);
      const auto* launches = reinterpret_cast<const RegionLaunchRecord*>(base);
      const auto* names = reinterpret_cast<const RegionNameRecord*>(base + launch_bytes);
      const unsigned char* buffers = base + launch_bytes + name_bytes;
      const uint64_t data_size = room - launch_bytes - name_bytes;
      for (uint32_t i = 0; i < rh->name_count; ++i) {
        const RegionNameRecord& n = names[i];
        if (n.region > kMaxRegionId) Corrupt("region name " + U(i) + " has region id " + U(n.region) + ", more than " + U(kMaxRegionId));
        check_string(n.name, "region name", i);
        check_string(n.file, "region name", i);
      }
      std::vector<uint32_t> order(rh->launch_count);
      for (uint32_t i = 0; i < rh->launch_count; ++i) {
        const RegionLaunchRecord& l = launches[i];
        order[i] = i;
        check_string(l.kernel, "region launch", i);
        if (!std::isfinite(l.cycles_per_ns) || l.cycles_per_ns < 0 || !std::isfinite(l.record_cost_cycles) ||
            l.record_cost_cycles < 0)
          Corrupt("region launch " + U(i) + " has a non-finite or negative clock rate or record cost");
        if (uint64_t(l.first_name) + l.name_count > rh->name_count)
          Corrupt("region launch " + U(i) + " refers to names " + U(l.first_name) + ".." +
                  U(uint64_t(l.first_name) + l.name_count) + ", the section has " + U(rh->name_count));
        for (uint32_t k = 1; k < l.name_count; ++k)
          if (names[l.first_name + k].region <= names[l.first_name + k - 1].region)
            Corrupt("region launch " + U(i) + ": its names are not in ascending region id order");
        uint64_t end;
        if (AddOverflows(l.offset, l.size, &end) || end > data_size)
          Corrupt("region launch " + U(i) + " buffer (offset " + U(l.offset) + ", " + U(l.size) +
                  " bytes) is outside the region launches section");
        if (l.offset % 8 != 0) Corrupt("region launch " + U(i) + " buffer is not 8-byte aligned");
        if (Fnv1a64(buffers + l.offset, l.size) != l.hash) Corrupt("region launch " + U(i) + " buffer hash mismatch");
      }
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return launches[a].offset < launches[b].offset; });
      uint64_t reach = 0;
      uint32_t reach_by = 0;
      for (uint32_t i : order) {
        if (launches[i].size == 0) continue;
        if (reach > launches[i].offset) Corrupt("region launch " + U(reach_by) + " buffer overlaps that of launch " + U(i));
        if (launches[i].offset + launches[i].size > reach) { reach = launches[i].offset + launches[i].size; reach_by = i; }
      }
      r.region_launches_ = Span<RegionLaunchRecord>{launches, rh->launch_count};
      r.region_names_ = Span<RegionNameRecord>{names, rh->name_count};
      r.region_data_ = reinterpret_cast<const char*>(buffers);
    }
  }

  // --- Frame source lines -------------------------------------------------------------------
  if (const SectionEntry* s = section(SectionKind::kFrameSourceLines)) {
    if (s->record_size != 0) Corrupt("frame source lines section has record size " + U(s->record_size) + ", expected 0");
    if (s->size < sizeof(FrameSourceLinesHeader)) Corrupt("frame source lines section is too small for its header");
    const auto* fh = reinterpret_cast<const FrameSourceLinesHeader*>(data + s->offset);
    r.frame_lines_version_ = fh->version;
    if (fh->version == 0) Corrupt("frame source lines section has version 0");
    if (fh->version <= kFrameSourceLinesVersion) {
      if (fh->list_count != s->count)
        Corrupt("frame source lines section header says " + U(fh->list_count) + " lists, section table says " + U(s->count));
      // u32 counts times 16 bytes: no overflow in 64 bits.
      const uint64_t list_bytes = uint64_t(fh->list_count) * sizeof(FrameSourceListRecord);
      const uint64_t line_bytes = uint64_t(fh->line_count) * sizeof(SourceLineRecord);
      if (list_bytes + line_bytes != s->size - sizeof(FrameSourceLinesHeader))
        Corrupt("frame source lines section (" + U(s->size) + " bytes) does not hold " + U(fh->list_count) +
                " lists and " + U(fh->line_count) + " lines");
      const unsigned char* base = data + s->offset + sizeof(FrameSourceLinesHeader);
      const auto* lists = reinterpret_cast<const FrameSourceListRecord*>(base);
      const auto* lines = reinterpret_cast<const SourceLineRecord*>(base + list_bytes);
      for (uint32_t i = 0; i < fh->line_count; ++i) {
        check_string(lines[i].file, "source line", i);
        check_string(lines[i].function, "source line", i);
      }
      for (uint32_t i = 0; i < fh->list_count; ++i) {
        const FrameSourceListRecord& l = lists[i];
        if (l.frame >= r.frames_.size)
          Corrupt("frame source list " + U(i) + " names frame " + U(l.frame) + ", the profile has " + U(r.frames_.size));
        if (l.role == 0) Corrupt("frame source list " + U(i) + " has role 0");
        if (l.line_count == 0) Corrupt("frame source list " + U(i) + " is empty");
        if (uint64_t(l.first_line) + l.line_count > fh->line_count)
          Corrupt("frame source list " + U(i) + " refers to lines " + U(l.first_line) + ".." +
                  U(uint64_t(l.first_line) + l.line_count) + ", the section has " + U(fh->line_count));
        if (i > 0 && (lists[i - 1].frame > l.frame || (lists[i - 1].frame == l.frame && lists[i - 1].role >= l.role)))
          Corrupt("frame source list " + U(i) + " is out of (frame, role) order");
      }
      r.frame_lists_ = Span<FrameSourceListRecord>{lists, fh->list_count};
      r.frame_lines_ = Span<SourceLineRecord>{lines, fh->line_count};
    }
  }
  // --- GPU activities -----------------------------------------------------------------------
  if (const SectionEntry* s = section(SectionKind::kGpuActivities)) {
    if (s->record_size != 0) Corrupt("GPU activities section has record size " + U(s->record_size) + ", expected 0");
    if (s->size < sizeof(GpuActivitiesHeader)) Corrupt("GPU activities section is too small for its header");
    const auto* gh = reinterpret_cast<const GpuActivitiesHeader*>(data + s->offset);
    r.gpu_activities_version_ = gh->version;
    if (gh->version == 0) Corrupt("GPU activities section has version 0");
    if (gh->version <= kGpuActivitiesVersion) {
      if (gh->record_count != s->count)
        Corrupt("GPU activities section header says " + U(gh->record_count) + " records, section table says " + U(s->count));
      // u32 count times 80 bytes: no overflow in 64 bits.
      if (uint64_t(gh->record_count) * sizeof(GpuActivityRecord) != s->size - sizeof(GpuActivitiesHeader))
        Corrupt("GPU activities section (" + U(s->size) + " bytes) does not hold " + U(gh->record_count) + " records");
      const auto* recs = reinterpret_cast<const GpuActivityRecord*>(data + s->offset + sizeof(GpuActivitiesHeader));
      for (uint32_t i = 0; i < gh->record_count; ++i) {
        const GpuActivityRecord& a = recs[i];
        check_string(a.name, "GPU activity", i);
        if (a.node >= r.nodes_.size)
          Corrupt("GPU activity " + U(i) + " refers to node " + U(a.node) + ", there are " + U(r.nodes_.size));
        if (a.end_ns < a.start_ns) Corrupt("GPU activity " + U(i) + " ends before it starts");
      }
      r.gpu_timeline_ = gh;
      r.gpu_activities_ = Span<GpuActivityRecord>{recs, gh->record_count};
    }
  }
  // --- Collectives -----------------------------------------------------------------------------
  if (const SectionEntry* s = section(SectionKind::kCollectives)) {
    if (s->record_size != 0) Corrupt("collectives section has record size " + U(s->record_size) + ", expected 0");
    if (s->size < sizeof(CollectivesHeader)) Corrupt("collectives section is too small for its header");
    const auto* ch = reinterpret_cast<const CollectivesHeader*>(data + s->offset);
    r.collectives_version_ = ch->version;
    if (ch->version == 0) Corrupt("collectives section has version 0");
    if (ch->version <= kCollectivesVersion) {
      if (ch->site_count != s->count)
        Corrupt("collectives section header says " + U(ch->site_count) + " sites, section table says " + U(s->count));
      // u32 counts times 80 / 32 bytes: no overflow in 64 bits.
      if (uint64_t(ch->site_count) * sizeof(CollectiveSiteRecord) + uint64_t(ch->call_count) * sizeof(CollectiveCallRecord) !=
          s->size - sizeof(CollectivesHeader))
        Corrupt("collectives section (" + U(s->size) + " bytes) does not hold " + U(ch->site_count) + " sites and " +
                U(ch->call_count) + " calls");
      const auto* sites = reinterpret_cast<const CollectiveSiteRecord*>(data + s->offset + sizeof(CollectivesHeader));
      const auto* calls = reinterpret_cast<const CollectiveCallRecord*>(sites + ch->site_count);
      for (uint32_t i = 0; i < ch->site_count; ++i) {
        const CollectiveSiteRecord& c = sites[i];
        check_string(c.name, "collective site", i);
        check_string(c.backend, "collective site", i);
        check_string(c.dtype, "collective site", i);
        check_string(c.group_name, "collective site", i);
        if (c.node >= r.nodes_.size)
          Corrupt("collective site " + U(i) + " refers to node " + U(c.node) + ", there are " + U(r.nodes_.size));
        if (c.count && (c.min_ns > c.max_ns || c.max_ns > c.total_ns))
          Corrupt("collective site " + U(i) + " has inconsistent times");
      }
      for (uint32_t i = 0; i < ch->call_count; ++i) {
        const CollectiveCallRecord& c = calls[i];
        if (c.site >= ch->site_count)
          Corrupt("collective call " + U(i) + " refers to site " + U(c.site) + ", there are " + U(ch->site_count));
        if (c.end_ns && c.end_ns < c.start_ns) Corrupt("collective call " + U(i) + " ends before it starts");
      }
      r.collectives_ = ch;
      r.collective_sites_ = Span<CollectiveSiteRecord>{sites, ch->site_count};
      r.collective_calls_ = Span<CollectiveCallRecord>{calls, ch->call_count};
    }
  }
  return r;
}

FrameSourceListView ProfileReader::frame_source_list(size_t i) const {
  const FrameSourceListRecord& l = frame_lists_[i];
  return FrameSourceListView{l.frame, l.role, Span<SourceLineRecord>{frame_lines_.data + l.first_line, l.line_count}};
}

Span<SourceLineRecord> ProfileReader::frame_source_lines(uint32_t frame, SourceLinesRole role) const {
  const FrameSourceListRecord* it = std::lower_bound(
      frame_lists_.begin(), frame_lists_.end(), std::make_pair(frame, uint32_t(role)),
      [](const FrameSourceListRecord& l, const std::pair<uint32_t, uint32_t>& key) {
        return l.frame != key.first ? l.frame < key.first : l.role < key.second;
      });
  if (it == frame_lists_.end() || it->frame != frame || it->role != uint32_t(role)) return {};
  return Span<SourceLineRecord>{frame_lines_.data + it->first_line, it->line_count};
}

RegionLaunchView ProfileReader::region_launch(size_t i) const {
  const RegionLaunchRecord& l = region_launches_[i];
  RegionLaunchView v;
  v.kernel = string(l.kernel);
  v.correlation_id = l.correlation_id;
  v.sm_clock_khz = l.sm_clock_khz;
  v.cycles_per_ns = l.cycles_per_ns;
  v.record_cost_cycles = l.record_cost_cycles;
  v.names = Span<RegionNameRecord>{region_names_.data + l.first_name, l.name_count};
  v.buffer = std::string_view(region_data_ + l.offset, size_t(l.size));
  return v;
}

}  // namespace strata::format
