#include "strata/format/writer.h"

#include "strata/format/byte_append.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace strata::format {


void MetricStats::Add(double v) {
  if (count == 0) { min = max = v; } else { min = std::min(min, v); max = std::max(max, v); }
  ++count;
  double mean_before = count > 1 ? (sum / double(count - 1)) : 0.0;
  sum += v;
  double mean_after = sum / double(count);
  m2 += (v - mean_before) * (v - mean_after);
  if (count == 1) m2 = 0;
}

void MetricStats::Merge(const MetricStats& o) {
  if (o.count == 0) return;
  if (count == 0) { *this = o; return; }
  double n1 = double(count), n2 = double(o.count);
  double delta = o.sum / n2 - sum / n1;
  m2 = m2 + o.m2 + delta * delta * n1 * n2 / (n1 + n2);
  count += o.count;
  sum += o.sum;
  min = std::min(min, o.min);
  max = std::max(max, o.max);
}

size_t ProfileWriter::FrameKeyHash::operator()(const FrameKey& k) const {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) { h ^= v; h *= 1099511628211ull; };
  mix(k.kind); mix(k.module); mix(k.address); mix(k.name); mix(k.file); mix(k.line); mix(k.flags); mix(k.list);
  return size_t(h);
}

ProfileWriter::ProfileWriter() {
  String("");
  uint32_t root_frame = Frame(FrameKind::kRoot, kNone, 0, "<root>", "", 0);
  nodes_.push_back(NodeRecord{kNone, root_frame});
  node_stats_.emplace_back();
}

uint32_t ProfileWriter::String(std::string_view s) {
  auto it = string_index_.find(std::string(s));
  if (it != string_index_.end()) return it->second;
  uint32_t id = uint32_t(strings_.size());
  strings_.emplace_back(s);
  string_index_.emplace(std::string(s), id);
  return id;
}

void ProfileWriter::Meta(std::string_view key, std::string_view value) {
  uint32_t k = String(key), v = String(value);
  for (auto& m : meta_) if (m.key == k) { m.value = v; return; }
  meta_.push_back(MetaEntry{k, v});
}

uint32_t ProfileWriter::Module(std::string_view path, std::string_view build_id, uint64_t bias) {
  uint32_t p = String(path), b = String(build_id);
  for (uint32_t i = 0; i < modules_.size(); ++i)
    if (modules_[i].path == p && modules_[i].load_bias == bias) return i;
  modules_.push_back(ModuleRecord{p, b, bias, 0, 0});
  return uint32_t(modules_.size() - 1);
}

uint32_t ProfileWriter::Frame(FrameKind kind, uint32_t module, uint64_t address,
                              std::string_view name, std::string_view file, uint32_t line, uint32_t flags) {
  FrameKey key{uint32_t(kind), module, address, String(name), String(file), line, flags};
  auto it = frame_index_.find(key);
  if (it != frame_index_.end()) return it->second;
  uint32_t id = uint32_t(frames_.size());
  frames_.push_back(FrameRecord{key.kind, key.module, key.address, key.name, key.file, key.line, key.flags});
  frame_index_.emplace(key, id);
  return id;
}

uint32_t ProfileWriter::Frame(FrameKind kind, uint32_t module, uint64_t address, std::string_view name,
                              std::string_view file, uint32_t line, uint32_t flags, SourceLinesRole role,
                              const std::vector<SourceLine>& lines) {
  std::vector<uint32_t> key{uint32_t(role)};
  for (const SourceLine& l : lines) {
    const uint32_t f = String(l.file), fn = String(l.function);
    bool seen = false;
    for (size_t k = 1; k < key.size() && !seen; k += 3) seen = key[k] == f && key[k + 1] == fn && key[k + 2] == l.line;
    if (!seen) key.insert(key.end(), {f, fn, l.line});
  }
  if (key.size() == 1) return Frame(kind, module, address, name, file, line, flags);
  auto [it, fresh] = source_list_index_.try_emplace(key, uint32_t(source_lists_.size()));
  if (fresh) {
    source_lists_.push_back(SourceList{uint32_t(role), uint32_t(source_lines_.size()), uint32_t(key.size() / 3)});
    for (size_t k = 1; k < key.size(); k += 3) source_lines_.push_back(SourceLineRecord{key[k], key[k + 1], key[k + 2], 0});
  }
  FrameKey fk{uint32_t(kind), module, address, String(name), String(file), line, flags, it->second};
  auto found = frame_index_.find(fk);
  if (found != frame_index_.end()) return found->second;
  uint32_t id = uint32_t(frames_.size());
  frames_.push_back(FrameRecord{fk.kind, fk.module, fk.address, fk.name, fk.file, fk.line, fk.flags});
  frame_index_.emplace(fk, id);
  frame_lists_.emplace_back(id, it->second);  // ids ascend: the section's (frame, role) order
  return id;
}

uint32_t ProfileWriter::Metric(std::string_view name, std::string_view unit) {
  uint32_t n = String(name), u = String(unit);
  for (uint32_t i = 0; i < metrics_.size(); ++i) if (metrics_[i].name == n) return i;
  metrics_.push_back(MetricDescriptor{n, u, 0, 0});
  return uint32_t(metrics_.size() - 1);
}

std::optional<uint32_t> ProfileWriter::FindMetric(std::string_view name) const {
  for (uint32_t i = 0; i < metrics_.size(); ++i)
    if (strings_[metrics_[i].name] == name) return i;
  return std::nullopt;
}

uint32_t ProfileWriter::Child(uint32_t parent, uint32_t frame) {
  uint64_t key = (uint64_t(parent) << 32) | frame;
  auto it = child_index_.find(key);
  if (it != child_index_.end()) return it->second;
  uint32_t id = uint32_t(nodes_.size());
  nodes_.push_back(NodeRecord{parent, frame});
  node_stats_.emplace_back();
  child_index_.emplace(key, id);
  return id;
}

void ProfileWriter::AddStats(uint32_t node, uint32_t metric, const MetricStats& stats) {
  auto& v = node_stats_[node];
  for (auto& [m, s] : v) if (m == metric) { s.Merge(stats); return; }
  v.emplace_back(metric, stats);
}

std::vector<unsigned char> SerializeBlobsSection(const std::vector<BlobView>& blobs) {
  std::vector<unsigned char> out;
  Append(out, BlobsHeader{uint32_t(blobs.size()), 0});
  uint64_t offset = 0;
  for (const auto& b : blobs) {
    const auto* p = reinterpret_cast<const unsigned char*>(b.bytes.data());
    Append(out, BlobEntry{b.module, uint32_t(b.kind), offset, b.bytes.size(), Fnv1a64(p, b.bytes.size())});
    offset += (b.bytes.size() + 7) & ~uint64_t(7);
  }
  // The data starts 8-aligned (the section starts aligned; header and entries are multiples of
  // 8), so padding each blob to 8 keeps every offset aligned; no padding after the last one.
  for (size_t i = 0; i < blobs.size(); ++i) {
    if (i > 0) Align8(out);
    out.insert(out.end(), blobs[i].bytes.begin(), blobs[i].bytes.end());
  }
  return out;
}

void ProfileWriter::Blob(uint32_t module, BlobKind kind, std::string_view bytes) {
  for (auto& b : blobs_)
    if (b.module == module && b.kind == kind) { b.bytes.assign(bytes); return; }  // last wins
  blobs_.push_back(PendingBlob{module, kind, std::string(bytes)});
}

void ProfileWriter::AddRegionLaunch(const RegionLaunch& launch) {
  std::map<uint16_t, const RegionNameEntry*> by_id;  // ascending ids, the last entry of an id
  for (const RegionNameEntry& n : launch.names)
    if (n.region <= kMaxRegionId) by_id[n.region] = &n;
  std::vector<RegionNameRecord> names;
  for (const auto& [id, n] : by_id) names.push_back(RegionNameRecord{id, String(n->name), String(n->file), n->line});
  // The same table as an earlier launch's (the kernel launched again): share its records.
  uint32_t first = uint32_t(region_names_.size());
  for (const PendingRegionLaunch& p : region_launches_) {
    const RegionLaunchRecord& r = p.record;
    if (r.name_count == names.size() &&
        std::equal(names.begin(), names.end(), region_names_.begin() + r.first_name, [](const auto& a, const auto& b) {
          return a.region == b.region && a.name == b.name && a.file == b.file && a.line == b.line;
        })) {
      first = r.first_name;
      break;
    }
  }
  if (first == region_names_.size()) region_names_.insert(region_names_.end(), names.begin(), names.end());
  RegionLaunchRecord rec{};
  rec.kernel = String(launch.kernel);
  rec.sm_clock_khz = launch.sm_clock_khz;
  rec.correlation_id = launch.correlation_id;
  // The reader rejects what is not a finite, non-negative rate.
  auto rate = [](double v) { return std::isfinite(v) && v > 0 ? v : 0.0; };
  rec.cycles_per_ns = rate(launch.cycles_per_ns);
  rec.record_cost_cycles = rate(launch.record_cost_cycles);
  rec.first_name = first;
  rec.name_count = uint32_t(names.size());
  region_launches_.push_back(PendingRegionLaunch{rec, launch.buffer});
}

void ProfileWriter::SetGpuTimeline(uint64_t dropped, uint64_t limit, const GpuClockReading& first_clock,
                                   const GpuClockReading& last_clock) {
  gpu_timeline_ = true;
  gpu_timeline_header_.dropped = dropped;
  gpu_timeline_header_.limit = limit;
  gpu_timeline_header_.first_clock = first_clock;
  gpu_timeline_header_.last_clock = last_clock;
}

uint32_t ProfileWriter::AddCollectiveSite(const CollectiveSiteRecord& site) {
  collectives_ = true;
  collective_sites_.push_back(site);
  return uint32_t(collective_sites_.size() - 1);
}

uint32_t ProfileWriter::AddCollectiveCall(const CollectiveCallRecord& call) {
  collectives_ = true;
  collective_calls_.push_back(call);
  return uint32_t(collective_calls_.size() - 1);
}

void ProfileWriter::SetCollectivesLimit(uint64_t calls_dropped, uint64_t call_limit) {
  collectives_ = true;
  collectives_header_.calls_dropped = calls_dropped;
  collectives_header_.call_limit = call_limit;
}

std::vector<unsigned char> ProfileWriter::Serialize() const {
  std::vector<unsigned char> out(sizeof(FileHeader), 0);
  std::vector<SectionEntry> sections;
  auto begin = [&](SectionKind kind, uint32_t record_size, uint64_t count) {
    Align8(out);
    sections.push_back(SectionEntry{uint32_t(kind), record_size, out.size(), 0, count});
  };
  auto end = [&]() { sections.back().size = out.size() - sections.back().offset; };

  begin(SectionKind::kStrings, 0, strings_.size());
  Append(out, StringsHeader{uint32_t(strings_.size()), 0});
  uint32_t off = 0;
  for (const auto& s : strings_) { Append(out, off); off += uint32_t(s.size()); }
  Append(out, off);
  for (const auto& s : strings_) out.insert(out.end(), s.begin(), s.end());
  end();

  begin(SectionKind::kMeta, sizeof(MetaEntry), meta_.size());
  for (const auto& m : meta_) Append(out, m);
  end();
  begin(SectionKind::kModules, sizeof(ModuleRecord), modules_.size());
  for (const auto& m : modules_) Append(out, m);
  end();
  begin(SectionKind::kFrames, sizeof(FrameRecord), frames_.size());
  for (const auto& f : frames_) Append(out, f);
  end();
  begin(SectionKind::kNodes, sizeof(NodeRecord), nodes_.size());
  for (const auto& n : nodes_) Append(out, n);
  end();
  begin(SectionKind::kMetrics, sizeof(MetricDescriptor), metrics_.size());
  for (const auto& m : metrics_) Append(out, m);
  end();
  uint64_t nm = 0;
  for (const auto& v : node_stats_) nm += v.size();
  begin(SectionKind::kNodeMetrics, sizeof(NodeMetricRecord), nm);
  for (uint32_t node = 0; node < node_stats_.size(); ++node) {
    auto v = node_stats_[node];
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (const auto& [metric, s] : v)
      Append(out, NodeMetricRecord{node, metric, s.count, s.sum, s.min, s.max, s.m2});
  }
  end();

  if (!blobs_.empty()) {  // optional: absent when there is nothing to carry
    std::vector<BlobView> views;
    for (const auto& b : blobs_) views.push_back(BlobView{b.module, b.kind, b.bytes});
    begin(SectionKind::kBlobs, 0, blobs_.size());
    std::vector<unsigned char> section = SerializeBlobsSection(views);
    out.insert(out.end(), section.begin(), section.end());
    end();
  }

  if (!region_launches_.empty()) {  // optional, like blobs
    begin(SectionKind::kRegionLaunches, 0, region_launches_.size());
    Append(out, RegionLaunchesHeader{kRegionLaunchesVersion, uint32_t(region_launches_.size()),
                                     uint32_t(region_names_.size()), 0});
    uint64_t offset = 0;
    for (const PendingRegionLaunch& p : region_launches_) {
      RegionLaunchRecord r = p.record;
      const auto* b = reinterpret_cast<const unsigned char*>(p.buffer.data());
      r.offset = offset;
      r.size = p.buffer.size();
      r.hash = Fnv1a64(b, p.buffer.size());
      Append(out, r);
      offset += (p.buffer.size() + 7) & ~uint64_t(7);
    }
    for (const RegionNameRecord& n : region_names_) Append(out, n);
    // Header and records are multiples of 8: the buffers start aligned; each padded to 8.
    for (size_t i = 0; i < region_launches_.size(); ++i) {
      if (i > 0) Align8(out);
      out.insert(out.end(), region_launches_[i].buffer.begin(), region_launches_[i].buffer.end());
    }
    end();
  }

  if (!frame_lists_.empty()) {  // optional, like the region launches
    begin(SectionKind::kFrameSourceLines, 0, frame_lists_.size());
    Append(out, FrameSourceLinesHeader{kFrameSourceLinesVersion, uint32_t(frame_lists_.size()),
                                       uint32_t(source_lines_.size()), 0});
    for (const auto& [frame, list] : frame_lists_) {
      const SourceList& l = source_lists_[list];
      Append(out, FrameSourceListRecord{frame, l.role, l.first, l.count});
    }
    for (const SourceLineRecord& l : source_lines_) Append(out, l);
    end();
  }

  if (gpu_timeline_ || !gpu_activities_.empty()) {  // optional
    begin(SectionKind::kGpuActivities, 0, gpu_activities_.size());
    GpuActivitiesHeader h = gpu_timeline_header_;
    h.version = kGpuActivitiesVersion;
    h.record_count = uint32_t(gpu_activities_.size());
    Append(out, h);
    for (const GpuActivityRecord& r : gpu_activities_) Append(out, r);
    end();
  }

  if (collectives_) {  // optional
    begin(SectionKind::kCollectives, 0, collective_sites_.size());
    CollectivesHeader h = collectives_header_;
    h.version = kCollectivesVersion;
    h.site_count = uint32_t(collective_sites_.size());
    h.call_count = uint32_t(collective_calls_.size());
    Append(out, h);
    for (const CollectiveSiteRecord& r : collective_sites_) Append(out, r);
    for (const CollectiveCallRecord& r : collective_calls_) Append(out, r);
    end();
  }

  Align8(out);
  uint64_t table = out.size();
  for (const auto& s : sections) Append(out, s);

  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  h.header_size = sizeof(FileHeader);
  h.file_size = out.size();
  h.section_table_offset = table;
  h.section_count = uint32_t(sections.size());
  h.section_entry_size = sizeof(SectionEntry);
  h.created_unix_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now().time_since_epoch()).count());
  h.checksum = Fnv1a(out.data() + sizeof(FileHeader), out.size() - sizeof(FileHeader));
  std::memcpy(out.data(), &h, sizeof(h));
  return out;
}

bool WriteFileAtomically(const std::string& path, const std::vector<unsigned char>& bytes,
                         std::string* error) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](int e, int fd) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    if (error) *error = "cannot write profile " + path + ": " + std::strerror(e);
    return false;
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail(errno, -1);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(n == 0 ? ENOSPC : errno, fd);
    done += size_t(n);
  }
  // Space may be allocated only at writeback (delayed allocation, network file systems): a
  // failed fsync or close is a failed write too, and the previous file must stay.
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) return fail(errno, fd);
  if (::close(fd) != 0 && errno != EINTR) return fail(errno, -1);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail(errno, -1);
  return true;
}

bool ProfileWriter::WriteAtomically(const std::string& path, std::string* error) const {
  return WriteFileAtomically(path, Serialize(), error);
}

const MetricStats* ProfileWriter::StatsAt(uint32_t node, uint32_t metric) const {
  if (node >= node_stats_.size()) return nullptr;
  for (const auto& [m, s] : node_stats_[node]) if (m == metric) return &s;
  return nullptr;
}

void ProfileWriter::ReplaceStats(uint32_t node, uint32_t metric, const MetricStats* stats) {
  if (node >= node_stats_.size()) return;
  auto& v = node_stats_[node];
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].first != metric) continue;
    if (stats) v[i].second = *stats;
    else v.erase(v.begin() + long(i));
    return;
  }
  if (stats) v.emplace_back(metric, *stats);
}

}  // namespace strata::format
