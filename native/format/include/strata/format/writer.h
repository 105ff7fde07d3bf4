// Builds a version-1 profile in memory and writes it atomically (temporary file + rename).
// Used by profiler_runtime at exit and by `strata record` to add how the target ended.
// Not async-signal-safe: call it from a normal thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <map>
#include <unordered_map>
#include <vector>

#include "strata/format/layout.h"
#include "strata/format/reader.h"

namespace strata::format {

struct MetricStats {
  uint64_t count = 0;
  double sum = 0, min = 0, max = 0, m2 = 0;
  void Add(double v);                       // Welford update
  void Merge(const MetricStats& other);     // Chan et al. parallel merge
};

// The bytes of a blobs section holding `blobs` in order (header, entries, 8-aligned data);
// shared by the writer and by profile rewrites that add blobs.
std::vector<unsigned char> SerializeBlobsSection(const std::vector<BlobView>& blobs);

// One entry of a kernel's region names table, the marker's source line apart from the name.
struct RegionNameEntry {
  uint16_t region = 0;        // <= kMaxRegionId (larger ids are left out)
  std::string name;
  std::string file;           // "" when the table gave no location
  uint32_t line = 0;
};

// One launch whose in-kernel region buffer was read back (the region launches section).
struct RegionLaunch {
  std::string kernel;               // mangled, as launched
  uint64_t correlation_id = 0;
  uint32_t sm_clock_khz = 0;        // the device's SM clock attribute (0: unknown)
  double cycles_per_ns = 0;         // what the buffer was decoded with (0: none)
  double record_cost_cycles = 0;
  std::vector<RegionNameEntry> names;  // any order; a repeated id: the last entry wins
  std::string buffer;               // the raw buffer as read back
};

// One source location a frame stands for (the frame source lines section).
struct SourceLine {
  std::string file;
  std::string function;     // "" when unknown
  uint32_t line = 0;
};

// Writes `bytes` to `path` through a temporary file beside it + fsync + rename: a reader sees
// the previous file or the new one, never a part. On failure (disk full, file size limit, ...)
// returns false with one line in *error, removes the temporary file and leaves `path` as it was.
bool WriteFileAtomically(const std::string& path, const std::vector<unsigned char>& bytes,
                         std::string* error);

class ProfileWriter {
 public:
  ProfileWriter();
  uint32_t String(std::string_view s);      // interned; "" is index 0
  void Meta(std::string_view key, std::string_view value);  // replaces an existing key
  uint32_t Module(std::string_view path, std::string_view build_id_hex, uint64_t load_bias);
  // Interned: the same (kind, module, address, name, file, line) returns the same index.
  uint32_t Frame(FrameKind kind, uint32_t module, uint64_t address, std::string_view name,
                 std::string_view file, uint32_t line, uint32_t flags = 0);  // flags: kFrameFlag*
  // A frame with the source lines it stands for (e.g. kFused: every line a fused kernel
  // computes), written to the optional frame source lines section. Interned with its list: the
  // same record with another list is another frame. Repeated lines are kept once (the first);
  // an empty list is the plain Frame above.
  uint32_t Frame(FrameKind kind, uint32_t module, uint64_t address, std::string_view name,
                 std::string_view file, uint32_t line, uint32_t flags, SourceLinesRole role,
                 const std::vector<SourceLine>& lines);
  uint32_t Metric(std::string_view name, std::string_view unit);
  // The metric of that name, if one was added (never adds one).
  std::optional<uint32_t> FindMetric(std::string_view name) const;
  // Node 0 (root) exists from the start. Children are interned per (parent, frame).
  uint32_t Child(uint32_t parent, uint32_t frame);
  void AddStats(uint32_t node, uint32_t metric, const MetricStats& stats);
  // Attaches bytes to a module (a cubin, its SASS listing). One blob per (module, kind): a
  // second call replaces the first. Written to the optional blobs section.
  void Blob(uint32_t module, BlobKind kind, std::string_view bytes);
  // Adds one captured region launch (written to the optional region launches section, in the
  // order added; identical names tables are stored once).
  void AddRegionLaunch(const RegionLaunch& launch);
  // The GPU activity timeline (optional section): records in the order added (`name` a string
  // index from String(), `node` one from Child()); SetGpuTimeline gives its header (how many
  // were dropped, the limit, the clock readings). Written when either was called.
  void AddGpuActivity(const GpuActivityRecord& record) { gpu_activities_.push_back(record); }
  size_t gpu_activity_count() const { return gpu_activities_.size(); }
  const GpuActivityRecord& gpu_activity(size_t i) const { return gpu_activities_[i]; }
  // A string added before (an index from String()).
  const std::string& string_at(uint32_t i) const { return strings_[i]; }
  void SetGpuTimeline(uint64_t dropped, uint64_t limit, const GpuClockReading& first_clock,
                      const GpuClockReading& last_clock);

  // Collectives (optional section): sites (`node` from Child(), strings from String()) and calls
  // (`site` an index returned by AddCollectiveSite), both updated in place as calls complete,
  // and the header's dropped count and limit. Written once any of these was called.
  uint32_t AddCollectiveSite(const CollectiveSiteRecord& site);
  CollectiveSiteRecord& collective_site(uint32_t i) { return collective_sites_[i]; }
  uint32_t AddCollectiveCall(const CollectiveCallRecord& call);
  CollectiveCallRecord& collective_call(uint32_t i) { return collective_calls_[i]; }
  void SetCollectivesLimit(uint64_t calls_dropped, uint64_t call_limit);

  // The stats of (node, metric), nullptr when there are none; ReplaceStats sets them (nullptr
  // removes them). A periodic checkpoint adds values meant for one file only and puts the
  // previous stats back after serializing.
  const MetricStats* StatsAt(uint32_t node, uint32_t metric) const;
  void ReplaceStats(uint32_t node, uint32_t metric, const MetricStats* stats);

  size_t node_count() const { return nodes_.size(); }
  // Serializes; on failure returns false and sets *error to one line; never leaves a partial
  // file at `path` (the temporary file is removed). Can be called any number of times.
  bool WriteAtomically(const std::string& path, std::string* error) const;
  std::vector<unsigned char> Serialize() const;

 private:
  struct FrameKey {
    uint32_t kind, module; uint64_t address; uint32_t name, file, line, flags;
    uint32_t list = kNone;  // index into source_lists_, kNone without
    bool operator==(const FrameKey& o) const {
      return kind == o.kind && module == o.module && address == o.address && name == o.name &&
             file == o.file && line == o.line && flags == o.flags && list == o.list;
    }
  };
  struct FrameKeyHash { size_t operator()(const FrameKey& k) const; };

  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> string_index_;
  std::vector<MetaEntry> meta_;
  std::vector<ModuleRecord> modules_;
  std::vector<FrameRecord> frames_;
  std::unordered_map<FrameKey, uint32_t, FrameKeyHash> frame_index_;
  std::vector<NodeRecord> nodes_;
  std::unordered_map<uint64_t, uint32_t> child_index_;  // (parent << 32 | frame) -> node
  std::vector<MetricDescriptor> metrics_;
  std::vector<std::vector<std::pair<uint32_t, MetricStats>>> node_stats_;  // per node
  struct PendingBlob { uint32_t module; BlobKind kind; std::string bytes; };
  std::vector<PendingBlob> blobs_;
  struct PendingRegionLaunch { RegionLaunchRecord record; std::string buffer; };
  std::vector<PendingRegionLaunch> region_launches_;  // record.offset/size/hash set on Serialize
  std::vector<RegionNameRecord> region_names_;
  // Frame source lines: interned lists (role + records), and which frame has which.
  struct SourceList { uint32_t role, first, count; };
  std::vector<SourceList> source_lists_;
  std::vector<SourceLineRecord> source_lines_;
  std::map<std::vector<uint32_t>, uint32_t> source_list_index_;  // role, then file/function/line triples
  std::vector<std::pair<uint32_t, uint32_t>> frame_lists_;       // (frame, list), frames ascending
  std::vector<GpuActivityRecord> gpu_activities_;
  bool gpu_timeline_ = false;                                    // SetGpuTimeline was called
  GpuActivitiesHeader gpu_timeline_header_{};
  bool collectives_ = false;                                     // SetCollectives was called
  std::vector<CollectiveSiteRecord> collective_sites_;
  std::vector<CollectiveCallRecord> collective_calls_;
  CollectivesHeader collectives_header_{};
};

}  // namespace strata::format
