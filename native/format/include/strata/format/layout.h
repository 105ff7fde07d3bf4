// On-disk layout of a Strata profile, version 1 (docs/profile-format.md is the prose spec).
// Shared by the writer (used by profiler_runtime and by the CLI) and the reader (native core).
// Every record is fixed-size, little-endian and 8-byte aligned so the file can be mmap-ed and
// indexed in place. Plain C++17, no dependencies: the runtime includes it too.
#pragma once

#include <cstdint>

namespace strata::format {

inline constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'P', 'F'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint32_t kNone = 0xFFFFFFFFu;  // "no string / no module / no parent"

// Section kinds. A reader skips kinds it does not know (forward compatible additions);
// a new *required* section means a new version.
enum class SectionKind : uint32_t {
  kStrings = 1,      // StringsHeader + offsets[count + 1] (u32) + bytes
  kMeta = 2,         // MetaEntry[count]      key/value string pairs
  kModules = 3,      // ModuleRecord[count]
  kFrames = 4,       // FrameRecord[count]
  kNodes = 5,        // NodeRecord[count]     node 0 is the root
  kMetrics = 6,      // MetricDescriptor[count]
  kNodeMetrics = 7,  // NodeMetricRecord[count], sorted by (node, metric)
  kBlobs = 8,        // BlobsHeader + BlobEntry[count] + data (record_size 0, like kStrings)
  kRegionLaunches = 9,  // RegionLaunchesHeader + RegionLaunchRecord[launches] +
                        // RegionNameRecord[names] + buffers (record_size 0; count = launches)
  kFrameSourceLines = 10,  // FrameSourceLinesHeader + FrameSourceListRecord[lists] +
                           // SourceLineRecord[lines] (record_size 0; count = lists)
  kGpuActivities = 11,  // GpuActivitiesHeader + GpuActivityRecord[records] (record_size 0;
                        // count = records)
  kCollectives = 12,    // CollectivesHeader + CollectiveSiteRecord[sites] + CollectiveCallRecord[calls]
                        // (record_size 0; count = sites)
};

struct FileHeader {            // at offset 0, 64 bytes
  char magic[8];               // kMagic
  uint32_t version;            // kVersion
  uint32_t header_size;        // sizeof(FileHeader)
  uint64_t file_size;          // total bytes; detects truncation
  uint64_t section_table_offset;
  uint32_t section_count;
  uint32_t section_entry_size; // sizeof(SectionEntry)
  uint64_t created_unix_ns;    // when the writer ran
  uint32_t checksum;           // FNV-1a 32 over every byte after the header
  uint32_t reserved0;
  uint64_t reserved1;
};
static_assert(sizeof(FileHeader) == 64, "FileHeader layout");

struct SectionEntry {          // 32 bytes
  uint32_t kind;               // SectionKind
  uint32_t record_size;        // bytes per record (0 for kStrings)
  uint64_t offset;             // from file start, 8-byte aligned
  uint64_t size;               // bytes
  uint64_t count;              // records (strings for kStrings)
};
static_assert(sizeof(SectionEntry) == 32, "SectionEntry layout");

struct StringsHeader {         // start of the kStrings section
  uint32_t count;
  uint32_t reserved;
  // followed by uint32_t offsets[count + 1] relative to the byte blob, then the blob (UTF-8,
  // not NUL-terminated). String i is blob[offsets[i], offsets[i+1]). String 0 is "".
};

struct MetaEntry {             // 8 bytes
  uint32_t key;                // string index
  uint32_t value;              // string index
};

struct ModuleRecord {          // 32 bytes
  uint32_t path;               // string index: absolute path as loaded
  uint32_t build_id;           // string index: lowercase hex of NT_GNU_BUILD_ID, "" if none
  uint64_t load_bias;          // runtime address minus ELF virtual address (0 for non-PIE)
  uint64_t reserved0;
  uint64_t reserved1;
};
static_assert(sizeof(ModuleRecord) == 32, "ModuleRecord layout");

// Frame kinds. The numeric values are part of the format.
enum class FrameKind : uint32_t {
  kRoot = 0,
  kPython = 1,    // name = qualified function, file = co_filename, line = executing line
  kNative = 2,    // module + address (ELF virtual address inside the module); name = dynamic
                  // symbol when the runtime found one (the core symbolizes with DWARF)
  kOperator = 3,  // framework operator (e.g. aten::mm)
  kGpuApi = 4,    // CUDA runtime/driver API call
  kKernel = 5,    // GPU kernel
  kPc = 6,        // GPU instruction (module = cubin)
  kRegion = 7,    // in-kernel region
  kThread = 8,    // a thread: the launching thread of GPU work placed under another thread's
                  // Python stack (name = "thread <comm>")
  kProcess = 9,   // one process of a run shown together (the core's merged run view, never
                  // written by the runtime): address = its pid, name = its command and pid
};

struct FrameRecord {           // 32 bytes
  uint32_t kind;               // FrameKind
  uint32_t module;             // module index or kNone
  uint64_t address;            // kNative/kPc: address inside the module (call sites already -1)
  uint32_t name;               // string index ("" when unknown)
  uint32_t file;               // string index ("" when unknown)
  uint32_t line;               // 0 when unknown
  uint32_t flags;              // kFrameFlag* bits; 0 for none
};
static_assert(sizeof(FrameRecord) == 32, "FrameRecord layout");

// FrameRecord::flags. Readers ignore bits they do not know.
// A kRegion frame that is one iteration of a loop: its name is the loop region's; iterations
// nest inside the loop's frame (viewers show them as "<name> (iteration)").
inline constexpr uint32_t kFrameFlagIteration = 1u;
// A synthetic kNative frame (module kNone, address 0) standing where a call stack was cut: the
// depth limit, an unwind failure, or a sample that could only take its PC. The frames rootward
// of it are unknown; its name says why ("<stack truncated: depth limit>"). Kept a native frame
// with a flag, not a new kind, so version-1 readers that ignore the flag still show the name.
inline constexpr uint32_t kFrameFlagTruncation = 2u;
// A kNative frame of a path that had no recorded operator frame when it was taken (RecordFunction
// callbacks off: operators from frames, before a program's first autograd graph, between sampled
// windows; or an operator torch does not observe). Where it is a dispatcher entry point, readers
// name the operator from it; with recorded operators on the path it stays a native frame.
inline constexpr uint32_t kFrameFlagOperatorNotRecorded = 4u;

struct NodeRecord {            // 8 bytes; parents always precede children (parent < id)
  uint32_t parent;             // kNone for node 0 (root)
  uint32_t frame;              // frame index (the root's frame has kind kRoot)
};

struct MetricDescriptor {      // 16 bytes
  uint32_t name;               // string index, e.g. "cpu_time"
  uint32_t unit;               // string index, e.g. "ns"
  uint32_t flags;              // reserved, 0
  uint32_t reserved;
};

// Exclusive statistics of one metric at one node: the values of the samples/events that landed
// exactly on this node. Inclusive values are derived by the reader. Welford form so that
// aggregation is online and numerically stable: variance = m2 / count.
struct NodeMetricRecord {      // 48 bytes
  uint32_t node;
  uint32_t metric;
  uint64_t count;
  double sum;
  double min;
  double max;
  double m2;                   // sum of squared deviations from the mean
};
static_assert(sizeof(NodeMetricRecord) == 48, "NodeMetricRecord layout");

// Binary payloads attached to a module, so that a profile analyzed on another machine carries
// what it needs: GPU code (a cubin) and its disassembly. Optional section; no version change.
enum class BlobKind : uint32_t {
  kCubin = 1,        // the ELF bytes of a CUDA module as loaded, or cut down to its sampled
                     // functions' code (native/cubin_trim); ModuleRecord path "cubin:<crc>"
  kSassListing = 2,  // UTF-8 text of `nvdisasm -c -gi` run on the kCubin blob of the same module
  // Superseded by the kRegionLaunches section; profiles written before it carry these (the core
  // converts them on read, native/core/src/regions/legacy_region_blobs.cpp). Not written any more.
  kRegionBuffer = 3, // an in-kernel region buffer as read back after one launch (docs/regions.md;
                     // ModuleRecord path "regions:<kernel>#<correlation id>")
  kRegionInfo = 4,   // how the runtime decoded the kRegionBuffer of the same module: UTF-8 lines
                     // "names=<id=name;...>", "cycles_per_ns=<rate>", "record_cost_cycles=<c>"
};

struct BlobsHeader {           // start of the kBlobs section
  uint32_t count;              // BlobEntry records that follow
  uint32_t reserved;           // 0
};

struct BlobEntry {             // 32 bytes
  uint32_t module;             // module index (< module count)
  uint32_t kind;               // BlobKind
  uint64_t offset;             // from the start of the data (after the entries), 8-byte aligned
  uint64_t size;               // bytes
  uint64_t hash;               // Fnv1a64 of the bytes
};
static_assert(sizeof(BlobEntry) == 32, "BlobEntry layout");

// In-kernel region launches (docs/regions.md): per launch whose region buffer the runtime read
// back, the kernel, its correlation id, how the runtime decoded the buffer (clock rate, record
// cost) and the kernel's region names, then the raw buffer. Optional section; versioned on its
// own: a reader skips a section of a newer version (region_launches_version() says so).
inline constexpr uint32_t kRegionLaunchesVersion = 1;
inline constexpr uint32_t kMaxRegionId = 4095;  // region ids are 12 bits (regions.cuh)

struct RegionLaunchesHeader {  // 16 bytes, start of the kRegionLaunches section
  uint32_t version;            // kRegionLaunchesVersion
  uint32_t launch_count;       // RegionLaunchRecord records that follow (= SectionEntry::count)
  uint32_t name_count;         // RegionNameRecord records after them
  uint32_t reserved;           // 0
};
static_assert(sizeof(RegionLaunchesHeader) == 16, "RegionLaunchesHeader layout");

struct RegionLaunchRecord {    // 64 bytes
  uint32_t kernel;             // string index: the kernel's mangled name as launched
  uint32_t sm_clock_khz;       // the device's SM clock attribute at capture (0: unknown)
  uint64_t correlation_id;     // CUPTI's correlation id of the launch (0: unknown)
  double cycles_per_ns;        // clock64 cycles per ns the runtime decoded with (0: none)
  double record_cost_cycles;   // per-record cost the runtime replayed with (0: no replay)
  uint32_t first_name;         // this launch's names: RegionNameRecord[first_name,
  uint32_t name_count;         //   first_name + name_count), ids ascending (launches may share)
  uint64_t offset;             // the raw buffer, from the start of the buffer data, 8-aligned
  uint64_t size;               // bytes
  uint64_t hash;               // Fnv1a64 of the buffer
};
static_assert(sizeof(RegionLaunchRecord) == 64, "RegionLaunchRecord layout");

struct RegionNameRecord {      // 16 bytes: one entry of a kernel's region names table
  uint32_t region;             // region id, <= kMaxRegionId
  uint32_t name;               // string index
  uint32_t file;               // string index: the marker's source file as given ("" none)
  uint32_t line;               // the marker's line (0: none)
};
static_assert(sizeof(RegionNameRecord) == 16, "RegionNameRecord layout");

// Source lines attached to a frame (optional section; versioned on its own like the region
// launches): what a frame stands for when it is more than one line, e.g. a fused GPU kernel's
// frame lists every source line the kernel computes. Attached to frames, not nodes: the lines
// are a property of the fused code, the same wherever it is called from; the writer interns a
// frame with its list, so two frames with equal records but different lists stay two frames.
inline constexpr uint32_t kFrameSourceLinesVersion = 1;

// What a frame's list of source lines means. Readers skip lists of a role they do not know.
enum class SourceLinesRole : uint32_t {
  kFused = 1,  // the source lines this frame's kernel computes, in the compiler's order
};

struct FrameSourceLinesHeader {  // 16 bytes, start of the kFrameSourceLines section
  uint32_t version;              // kFrameSourceLinesVersion
  uint32_t list_count;           // FrameSourceListRecord records that follow (= SectionEntry::count)
  uint32_t line_count;           // SourceLineRecord records after them
  uint32_t reserved;             // 0
};
static_assert(sizeof(FrameSourceLinesHeader) == 16, "FrameSourceLinesHeader layout");

struct FrameSourceListRecord {   // 16 bytes; sorted by (frame, role), no pair twice
  uint32_t frame;                // frame index
  uint32_t role;                 // SourceLinesRole
  uint32_t first_line;           // SourceLineRecord[first_line, first_line + line_count)
  uint32_t line_count;           // at least 1 (lists may share records)
};
static_assert(sizeof(FrameSourceListRecord) == 16, "FrameSourceListRecord layout");

struct SourceLineRecord {        // 16 bytes: one source location
  uint32_t file;                 // string index: the source file as recorded
  uint32_t function;             // string index: the function ("" unknown)
  uint32_t line;                 // 1-based line (0: unknown)
  uint32_t reserved;             // 0
};
static_assert(sizeof(SourceLineRecord) == 16, "SourceLineRecord layout");

// The GPU activity timeline (optional section; versioned on its own like the region launches):
// when, on which device and stream, each kernel, copy and set ran, with the calling context tree
// node its launch was attributed to. The tree keeps totals per call path; this keeps the first
// records in the order the runtime attributed them, up to a limit, and says how many it dropped.
// Times are in the GPU tracer's clock (CUPTI's); the header's clock readings relate it to the
// host's, so a consumer can place records on the host's timeline.
inline constexpr uint32_t kGpuActivitiesVersion = 1;

// GpuActivityRecord::kind. Readers skip records of a kind they do not know.
enum class GpuActivityKind : uint32_t { kKernel = 1, kMemcpy = 2, kMemset = 3 };

// GpuActivityRecord::copy_kind: the direction of a copy (h host, d device, a array, p peer).
enum class GpuCopyKind : uint32_t {
  kOther = 0, kHtoD = 1, kDtoH = 2, kHtoA = 3, kAtoH = 4, kAtoA = 5, kAtoD = 6, kDtoA = 7, kDtoD = 8,
  kHtoH = 9, kPtoP = 10,
};

// One reading of the GPU tracer's clock and the host's clocks, taken back to back.
struct GpuClockReading {       // 24 bytes
  uint64_t gpu_ns;             // the tracer's timestamp (cuptiGetTimestamp)
  uint64_t unix_ns;            // CLOCK_REALTIME
  uint64_t monotonic_ns;       // CLOCK_MONOTONIC
};
static_assert(sizeof(GpuClockReading) == 24, "GpuClockReading layout");

struct GpuActivitiesHeader {   // 72 bytes, start of the kGpuActivities section
  uint32_t version;            // kGpuActivitiesVersion
  uint32_t record_count;       // GpuActivityRecord records that follow (= SectionEntry::count)
  uint64_t dropped;            // records attributed after the limit was reached (not kept)
  uint64_t limit;              // the most records the runtime keeps (its setting)
  GpuClockReading first_clock; // at the start of GPU collection (all zero: none taken)
  GpuClockReading last_clock;  // at the last drain before writing (all zero: none taken)
};
static_assert(sizeof(GpuActivitiesHeader) == 72, "GpuActivitiesHeader layout");

struct GpuActivityRecord {     // 80 bytes
  uint64_t start_ns;           // the tracer's clock (GpuActivitiesHeader relates it to the host)
  uint64_t end_ns;             // >= start_ns
  uint32_t kind;               // GpuActivityKind
  uint32_t device;             // device ordinal
  uint32_t context;            // the tracer's context id
  uint32_t stream;             // the tracer's stream id
  uint32_t correlation_id;     // of the API call that launched it (0: unknown)
  uint32_t node;               // the tree node it was attributed to (its kernel / memcpy / memset
                               // frame's node, under the launch's call path); 0 when none
  uint32_t name;               // string index: a kernel's mangled name ("" for copies and sets)
  uint32_t copy_kind;          // GpuCopyKind for a memcpy, 0 otherwise
  uint64_t bytes;              // memcpy, memset; 0 for kernels
  uint32_t grid[3];            // kernel launch configuration (x, y, z); 0 for copies and sets
  uint32_t block[3];
};
static_assert(sizeof(GpuActivityRecord) == 80, "GpuActivityRecord layout");

// Collectives (kCollectives): the communication calls of a distributed job (torch.distributed's
// all_reduce, broadcast, barrier, send/recv ...), each aggregated per call site (the tree node
// that issued it, the collective, its backend, element type, size and process group) and, up to
// a limit, each call with its times and sequence number, so that ranks can be lined up call by
// call. Versioned on its own: a reader skips a newer version.
inline constexpr uint32_t kCollectivesVersion = 1;

// CollectiveSiteRecord::op. The framework's own name is kept too (`name`); readers treat an op
// they do not know as kOther.
enum class CollectiveOp : uint32_t {
  kOther = 0, kAllReduce = 1, kAllGather = 2, kBroadcast = 3, kReduceScatter = 4, kReduce = 5,
  kGather = 6, kScatter = 7, kAllToAll = 8, kBarrier = 9, kSend = 10, kRecv = 11,
};

// CollectiveSiteRecord::flags.
inline constexpr uint32_t kCollectiveOnDevice = 1;      // device-side (a communication kernel's
                                                         // node and times); else the host call
inline constexpr uint32_t kCollectiveSeqIssueOrder = 2;  // `seq` is the call's order among this
                                                         // process's collectives (1-based), the
                                                         // framework gave none

struct CollectivesHeader {     // 32 bytes, start of the kCollectives section
  uint32_t version;            // kCollectivesVersion
  uint32_t site_count;         // CollectiveSiteRecord records that follow (= SectionEntry::count)
  uint32_t call_count;         // CollectiveCallRecord records after the sites
  uint32_t reserved;           // 0
  uint64_t calls_dropped;      // calls after the limit was reached: in their site, not listed
  uint64_t call_limit;         // the most calls the runtime lists (its setting; 0: none listed)
};
static_assert(sizeof(CollectivesHeader) == 32, "CollectivesHeader layout");

struct CollectiveSiteRecord {  // 80 bytes
  uint32_t node;               // tree node that issued it: the innermost framework operator
                               // (c10d::allreduce_) under the Python line, else that line
  uint32_t op;                 // CollectiveOp
  uint32_t name;               // string: the framework's name of the collective ("all_reduce")
  uint32_t backend;            // string: "gloo", "nccl", "mpi", "ucc" ("" unknown)
  uint32_t dtype;              // string: element type as the framework names it ("Float"; "" none)
  uint32_t group_name;         // string: process group name ("" unknown)
  uint32_t group_size;         // ranks in the process group (0 unknown)
  uint32_t flags;              // kCollective*
  uint64_t elements;           // elements per call (the input tensors together)
  uint64_t bytes;              // bytes per call (elements times element size)
  uint64_t count;              // calls that completed
  uint64_t total_ns;           // their time from issue to completion, summed
  uint64_t min_ns;             // shortest (0 when count is 0)
  uint64_t max_ns;             // longest
};
static_assert(sizeof(CollectiveSiteRecord) == 80, "CollectiveSiteRecord layout");

struct CollectiveCallRecord {  // 32 bytes, in issue order
  uint64_t start_ns;           // issue, CLOCK_MONOTONIC (meta start_monotonic_ns / start_unix_ns
                               // relate it to wall time)
  uint64_t end_ns;             // completion (>= start_ns); 0: had not completed when written
  uint64_t seq;                // the framework's sequence number in its group (see flags)
  uint32_t site;               // CollectiveSiteRecord index
  uint32_t reserved;           // 0
};
static_assert(sizeof(CollectiveCallRecord) == 32, "CollectiveCallRecord layout");

// FNV-1a 64-bit, used for BlobEntry::hash.
inline uint64_t Fnv1a64(const unsigned char* p, uint64_t n, uint64_t h = 14695981039346656037ull) {
  for (uint64_t i = 0; i < n; ++i) { h ^= p[i]; h *= 1099511628211ull; }
  return h;
}

// FNV-1a 32-bit, used for FileHeader::checksum.
inline uint32_t Fnv1a(const unsigned char* p, uint64_t n, uint32_t h = 2166136261u) {
  for (uint64_t i = 0; i < n; ++i) { h ^= p[i]; h *= 16777619u; }
  return h;
}

}  // namespace strata::format
