// Validating reader for profile format v1 (docs/profile-format.md, "How a reader validates").
// Parse() checks every byte it will ever hand out before returning: header, section table,
// section bounds and overlaps, record sizes, string table, every index and the tree shape.
// After a successful Parse() every accessor is in bounds. Zero-copy: the reader points into
// the caller's buffer (an mmap or a vector), which must outlive it. Plain C++17.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "strata/format/layout.h"

namespace strata::format {

// One line, e.g. "truncated profile: header says 4096 bytes, file has 1000".
class ReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One blob of the optional blobs section; `bytes` points into the profile.
struct BlobView {
  uint32_t module;
  BlobKind kind;
  std::string_view bytes;
};

template <typename T>
struct Span {
  const T* data = nullptr;
  size_t size = 0;
  const T& operator[](size_t i) const { return data[i]; }
  const T* begin() const { return data; }
  const T* end() const { return data + size; }
  bool empty() const { return size == 0; }
};

// One in-kernel region launch of the region launches section; views point into the profile.
struct RegionLaunchView {
  std::string_view kernel;          // mangled, as launched
  uint64_t correlation_id = 0;
  uint32_t sm_clock_khz = 0;
  double cycles_per_ns = 0;         // what the runtime decoded with (0: none)
  double record_cost_cycles = 0;
  Span<RegionNameRecord> names;     // ids ascending, strings already checked
  std::string_view buffer;          // the raw region buffer (hash already checked)
};

// One frame's list of source lines (the frame source lines section); records point into the
// profile, strings already checked.
struct FrameSourceListView {
  uint32_t frame = 0;
  uint32_t role = 0;                 // SourceLinesRole (a role this version does not know is kept)
  Span<SourceLineRecord> lines;
};

class ProfileReader {
 public:
  ProfileReader() = default;
  // Validates `size` bytes at `data` (8-byte aligned; mmap and operator new both are).
  // Throws ReadError with one line on the first violation.
  static ProfileReader Parse(const unsigned char* data, size_t size);

  const FileHeader& header() const { return *header_; }
  uint32_t version() const { return header_->version; }

  size_t string_count() const { return string_count_; }
  std::string_view string(uint32_t index) const {  // index < string_count()
    return std::string_view(blob_ + offsets_[index], offsets_[index + 1] - offsets_[index]);
  }
  Span<MetaEntry> meta() const { return meta_; }
  Span<ModuleRecord> modules() const { return modules_; }
  Span<FrameRecord> frames() const { return frames_; }
  Span<NodeRecord> nodes() const { return nodes_; }          // never empty: node 0 is the root
  Span<MetricDescriptor> metrics() const { return metrics_; }
  Span<NodeMetricRecord> node_metrics() const { return node_metrics_; }  // sorted (node, metric)
  Span<SectionEntry> sections() const { return sections_; }  // as stored, unknown kinds included
  // Blobs (cubins, SASS listings), in stored order; hashes and bounds already checked.
  size_t blob_count() const { return blob_entries_.size; }
  BlobView blob(size_t i) const {  // i < blob_count()
    const BlobEntry& e = blob_entries_[i];
    return BlobView{e.module, BlobKind(e.kind), std::string_view(blob_data_ + e.offset, size_t(e.size))};
  }

  // Region launches (optional section). region_launches_version(): 0 when the profile has no
  // such section; a version newer than kRegionLaunchesVersion is skipped (no launches).
  uint32_t region_launches_version() const { return region_launches_version_; }
  size_t region_launch_count() const { return region_launches_.size; }
  RegionLaunchView region_launch(size_t i) const;  // i < region_launch_count()

  // Frame source lines (optional section). frame_source_lines_version(): 0 when the profile has
  // no such section; a version newer than kFrameSourceLinesVersion is skipped (no lists).
  uint32_t frame_source_lines_version() const { return frame_lines_version_; }
  size_t frame_source_list_count() const { return frame_lists_.size; }
  FrameSourceListView frame_source_list(size_t i) const;  // i < frame_source_list_count(); sorted by (frame, role)
  // The lines of `role` attached to `frame` (empty when none): a binary search.
  Span<SourceLineRecord> frame_source_lines(uint32_t frame, SourceLinesRole role) const;

  // GPU activity timeline (optional section). gpu_activities_version(): 0 when the profile has
  // no such section; a version newer than kGpuActivitiesVersion is skipped (no records, no
  // header). Records are in the order the runtime attributed them; names and nodes checked.
  uint32_t gpu_activities_version() const { return gpu_activities_version_; }
  const GpuActivitiesHeader* gpu_timeline() const { return gpu_timeline_; }  // nullptr when none
  Span<GpuActivityRecord> gpu_activities() const { return gpu_activities_; }

  // Collectives (optional section). collectives_version(): 0 when the profile has none; a newer
  // version than kCollectivesVersion is skipped. Sites' nodes and strings, calls' sites checked.
  uint32_t collectives_version() const { return collectives_version_; }
  const CollectivesHeader* collectives() const { return collectives_; }  // nullptr when none
  Span<CollectiveSiteRecord> collective_sites() const { return collective_sites_; }
  Span<CollectiveCallRecord> collective_calls() const { return collective_calls_; }

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
  const FileHeader* header_ = nullptr;
  Span<SectionEntry> sections_;
  size_t string_count_ = 0;
  const uint32_t* offsets_ = nullptr;
  const char* blob_ = nullptr;
  Span<MetaEntry> meta_;
  Span<ModuleRecord> modules_;
  Span<FrameRecord> frames_;
  Span<NodeRecord> nodes_;
  Span<MetricDescriptor> metrics_;
  Span<NodeMetricRecord> node_metrics_;
  Span<BlobEntry> blob_entries_;
  const char* blob_data_ = nullptr;
  uint32_t region_launches_version_ = 0;
  Span<RegionLaunchRecord> region_launches_;
  Span<RegionNameRecord> region_names_;
  const char* region_data_ = nullptr;
  uint32_t frame_lines_version_ = 0;
  Span<FrameSourceListRecord> frame_lists_;
  Span<SourceLineRecord> frame_lines_;
  uint32_t gpu_activities_version_ = 0;
  const GpuActivitiesHeader* gpu_timeline_ = nullptr;
  Span<GpuActivityRecord> gpu_activities_;
  uint32_t collectives_version_ = 0;
  const CollectivesHeader* collectives_ = nullptr;
  Span<CollectiveSiteRecord> collective_sites_;
  Span<CollectiveCallRecord> collective_calls_;
};

// "cubin", "sass_listing", "region_buffer", "region_info"; nullptr for a kind this version does not know.
const char* BlobKindName(uint32_t kind);
// "root", "python", "native", "operator", "gpu_api", "kernel", "pc", "region", "thread",
// "process";
// nullptr for a kind this version does not know.
const char* FrameKindName(uint32_t kind);
const char* SectionKindName(uint32_t kind);

}  // namespace strata::format
