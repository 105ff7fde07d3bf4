// Strata in-kernel regions: a header-only CUDA C++ device API (issue 7, part 1).
//
// Marks regions of a kernel by compile-time id; one leader thread per lane (a warp group by
// default, a warp, or a thread set the user chooses) reads the SM clock at each marker and
// keeps an 8-byte record in shared memory (circular: the newest Capacity records; flush: spilled
// to global memory when full, so that all are kept). At the end, finalize writes the lane's
// metadata and records into a global buffer that the host (later: the Strata runtime) provides
// through the module-level variable `strata_region_buffer`. The buffer layout is the contract in
// docs/regions.md, shared with the decoder (native/core/include/strata/core/regions.h).
//
//   #include <strata/regions.cuh>
//   enum : unsigned { kLoad = 1, kMma = 2, kLoop = 3 };
//   STRATA_REGION_NAMES("1=load;2=mma;3=k-loop");          // once per .cu file (optional)
//   using Prof = strata::regions::Config<128>;             // 128 records per lane, circular
//   __global__ void k(...) {
//     STRATA_REGIONS_SHARED(Prof, prof_smem);              // the shared-memory slots
//     STRATA_REGIONS_BEGIN(Prof, prof, prof_smem, strata::regions::WarpGroupLane());
//     STRATA_REGION_START(prof, kLoop);
//     for (int i = 0; i < n; ++i) {
//       STRATA_ITER_START(prof, kLoop, i);
//       STRATA_REGION_START(prof, kLoad); ... STRATA_REGION_END(prof, kLoad);
//       STRATA_ITER_END(prof, kLoop, i);
//     }
//     STRATA_REGION_END(prof, kLoop);
//     STRATA_REGIONS_FINALIZE(prof);                       // every thread, at the kernel's end
//   }
//
// Async waits (KPerfIR's two-starts-one-end): START(id) when the async operation is issued,
// START(id) again (STRATA_REGION_WAIT) when the thread begins to wait for it, END(id) when the
// wait returns. The decoder reports the whole operation and the time spent waiting.
//
// #define STRATA_REGIONS_DISABLED before including (or -DSTRATA_REGIONS_DISABLED) and every
// macro below compiles to nothing: no shared memory, no registers, no global variable.
// STRATA_REGIONS_RELAXED: the clock read is no compiler memory barrier. STRATA_REGIONS_WARP_SKIP:
// warps that hold no recording thread skip the markers (for sparse markers; see below).
// Launched without a buffer (strata_region_buffer.ptr == 0, the state after module load), the
// markers record nothing: each still costs its few straight-line instructions (clock read, slot
// arithmetic, a store that is switched off), so the kernel computes the same and runs nearly as fast.
#pragma once

#include <stdint.h>

namespace strata {
namespace regions {

// ---- The contract (docs/regions.md); keep in step with native/core/include/strata/core/regions.h.
constexpr uint32_t kAbiVersion = 1;
constexpr uint32_t kMagic = 0x47455253u;        // bytes "SREG"
constexpr uint32_t kHeaderBytes = 64;
constexpr uint32_t kLaneEntryBytes = 96;        // lane metadata, then its records
constexpr uint32_t kChunkEntryBytes = 32;       // flushed chunk header, then its records
constexpr uint32_t kRecordBytes = 8;
constexpr uint32_t kEntryLane = 1;
constexpr uint32_t kEntryChunk = 2;
constexpr uint32_t kMaxRegionId = 4095;         // 12 bits
// Record: low word = tag, high word = low 32 bits of %clock64. Tag: kind << 28 | id << 16 | iter.
// Kinds 6-8 mark named barriers (the tag's id is the barrier's, its iteration field the use
// index): what lets the core draw dependency edges between lanes. Older decoders stop at them.
enum RecordKind : uint32_t {
  kStart = 0, kEnd = 1, kIterStart = 2, kIterEnd = 3, kFlushBegin = 4, kFlushEnd = 5,
  kBarrierArrive = 6, kBarrierWaitStart = 7, kBarrierWaitEnd = 8,
};
enum Mode : uint32_t { kCircular = 0, kFlush = 1 };
enum Grouping : uint32_t { kGroupWarpGroup = 0, kGroupWarp = 1, kGroupCustom = 2 };

// The module-level buffer descriptor. The runtime finds it by name (cuModuleGetGlobal,
// "strata_region_buffer") after module load and sets it before a launch; a harness sets it with
// cudaMemcpyToSymbol. The buffer must be zeroed before the launch (the device never clears it).
struct BufferDesc {
  unsigned long long ptr;       // device address; 0 = markers record nothing
  unsigned long long capacity;  // bytes at ptr
  unsigned int flags;           // bit 0: recording off (as if ptr were 0); other bits 0
  unsigned int reserved;
};
constexpr uint32_t kFlagOff = 1u;

}  // namespace regions
}  // namespace strata

#if defined(STRATA_REGIONS_DISABLED)

namespace strata {
namespace regions {
template <uint32_t Capacity = 128, Mode M = kCircular, uint32_t MaxLanes = 8>
struct Config {};  // the same spelling compiles; nothing is kept
}  // namespace regions
}  // namespace strata

// The names stay on the host (a harness still knows them); nothing goes into the module.
#define STRATA_REGION_NAMES(table) static const char strata_region_names_host[] = table
#define STRATA_REGIONS_SHARED(Cfg, name)
#define STRATA_REGIONS_BEGIN(Cfg, prof, storage, lane)
#define STRATA_REGION_START(prof, id) ((void)0)
#define STRATA_REGION_END(prof, id) ((void)0)
#define STRATA_REGION_WAIT(prof, id) ((void)0)
#define STRATA_ITER_START(prof, id, iter) ((void)0)
#define STRATA_ITER_END(prof, id, iter) ((void)0)
#define STRATA_BARRIER_ARRIVE(prof, bar, use) ((void)0)
#define STRATA_BARRIER_WAIT_START(prof, bar, use) ((void)0)
#define STRATA_BARRIER_WAIT_END(prof, bar, use) ((void)0)
#define STRATA_REGIONS_FINALIZE(prof) ((void)0)

namespace strata {
namespace regions {
static inline cudaError_t SetModuleBuffer(void*, size_t) { return cudaSuccess; }
}  // namespace regions
}  // namespace strata

#else  // recording compiled in

// The descriptor: one per module (whole-program compilation keeps the plain name in the cubin;
// with -rdc define STRATA_REGIONS_EXTERN_BUFFER in all .cu files but one).
#if defined(STRATA_REGIONS_EXTERN_BUFFER)
extern __device__ strata::regions::BufferDesc strata_region_buffer;
#else
static __device__ strata::regions::BufferDesc strata_region_buffer;
#endif

// Names for display: "id=name;id=name" (ids decimal). Kept in the module as
// `strata_region_names` (for the runtime) and on the host as `strata_region_names_host`.
#define STRATA_REGION_NAMES(table)                                         \
  static __device__ const char strata_region_names[] = table;              \
  static const char strata_region_names_host[] = table

namespace strata {
namespace regions {

// Host side, for harnesses and tests: hand this translation unit's kernels a zeroed buffer of
// `capacity` bytes (nullptr: markers record nothing). Under `strata record --regions` the
// runtime does this itself, per launch, through cuModuleGetGlobal.
static inline cudaError_t SetModuleBuffer(void* ptr, size_t capacity) {
  const BufferDesc d{reinterpret_cast<unsigned long long>(ptr), static_cast<unsigned long long>(capacity), 0u, 0u};
  return cudaMemcpyToSymbol(strata_region_buffer, &d, sizeof d);
}

// ---- Lanes: which threads share a record stream, and which one of them records.
struct LaneSpec {
  uint32_t group;     // lane index within the block (< Config::kMaxLanes)
  uint32_t grouping;  // Grouping
  bool leader;        // this thread records for the lane
  bool member;        // this thread belongs to a lane at all
};
__device__ __forceinline__ uint32_t LinearThread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
// One lane per 128 consecutive threads; the first thread of each records.
__device__ __forceinline__ LaneSpec WarpGroupLane() {
  const uint32_t t = LinearThread();
  return LaneSpec{t / 128u, kGroupWarpGroup, (t % 128u) == 0u, true};
}
// One lane per warp; lane 0 of each records.
__device__ __forceinline__ LaneSpec WarpLane() {
  const uint32_t t = LinearThread();
  return LaneSpec{t / 32u, kGroupWarp, (t % 32u) == 0u, true};
}
// Any thread set: the caller says which lane this thread is in and whether it leads it
// (exactly one leader per lane; groups need not align to warps). member=false: no lane.
__device__ __forceinline__ LaneSpec CustomLane(uint32_t group, bool leader, bool member = true) {
  return LaneSpec{group, kGroupCustom, leader && member, member};
}
// Only the block's first thread records (one lane per block).
__device__ __forceinline__ LaneSpec BlockLane() {
  return LaneSpec{0u, kGroupCustom, LinearThread() == 0u, true};
}

// ---- Compile-time configuration.
template <uint32_t Capacity = 128, Mode M = kCircular, uint32_t MaxLanes = 8>
struct Config {
  static_assert(Capacity >= 4 && Capacity <= 65536 && (Capacity & (Capacity - 1)) == 0,
                "records per lane: a power of two, 4..65536");
  static_assert(MaxLanes >= 1 && MaxLanes <= 64, "lanes per block: 1..64");
  static constexpr uint32_t kCapacity = Capacity;
  static constexpr Mode kMode = M;
  static constexpr uint32_t kMaxLanes = MaxLanes;
  struct Storage {
    unsigned long long slots[MaxLanes][Capacity];
  };
};

// The low 32 bits of %clock64: read with CS2R (fixed, short latency), where %clock goes through
// the slower S2R path (73 cycles a record back to back on the H100, against 2x fewer with this).
__device__ __forceinline__ uint32_t Clock32() {
  uint64_t c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return static_cast<uint32_t>(c);
}
// The clock read of a marker. By default it is also a compiler memory barrier: loads and stores
// of the caller stay on their side of the marker, as written. STRATA_REGIONS_RELAXED drops that
// (cheaper, but the compiler may then move independent memory accesses across markers).
__device__ __forceinline__ uint32_t MarkerClock32() {
  uint64_t c;
#if defined(STRATA_REGIONS_RELAXED)
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
#else
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
#endif
  return static_cast<uint32_t>(c);
}
__device__ __forceinline__ uint64_t Clock64() {
  uint64_t c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
__device__ __forceinline__ uint64_t GlobalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ uint32_t SmId() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__host__ __device__ constexpr uint32_t Tag(uint32_t kind, uint32_t id, uint32_t iter) {
  return (kind << 28) | ((id & 0xFFFu) << 16) | (iter & 0xFFFFu);
}

// Header fields (byte offsets; docs/regions.md).
struct HeaderView {
  uint32_t magic, version;            // 0, 4
  unsigned long long capacity;        // 8
  unsigned long long used;            // 16: bytes reserved after the header (atomic cursor)
  uint32_t lanes_written, lanes_dropped;                  // 24, 28
  unsigned long long records_dropped;                     // 32: records lost for want of space
  uint32_t chunks_written, chunks_dropped;                // 40, 44
  uint32_t header_bytes, record_bytes;                    // 48, 52
  uint32_t lane_entry_bytes, chunk_entry_bytes;           // 56, 60
};
static_assert(sizeof(HeaderView) == kHeaderBytes, "header is 64 bytes");

struct LaneEntry {                    // kLaneEntryBytes, 8-aligned
  uint32_t kind, bytes;               // 0: kEntryLane, whole entry size
  uint32_t block_linear, group;       // 8
  uint32_t block_x, block_y, block_z, smid;  // 16
  uint32_t grouping, mode;            // 32
  uint32_t capacity, leader_thread;   // 40
  uint32_t record_count;              // 48: records the lane produced (all of them)
  uint32_t records_here;              // 52: records following this entry
  uint32_t overflow_count;            // 56: records overwritten (circular) or lost (flush)
  uint32_t chunks;                    // 60: chunks flushed before this entry
  unsigned long long gt_start, clk_start, gt_end, clk_end;  // 64..95
};
static_assert(sizeof(LaneEntry) == kLaneEntryBytes, "lane entry is 96 bytes");

struct ChunkEntry {                   // kChunkEntryBytes
  uint32_t kind, bytes;               // kEntryChunk
  uint32_t block_linear, group;
  uint32_t seq, records_here;         // seq: 0, 1, ... per lane
  uint32_t first_record, reserved;    // first_record: the lane's index of the first record here
};
static_assert(sizeof(ChunkEntry) == kChunkEntryBytes, "chunk entry is 32 bytes");

// Reserve `bytes` in the arena; nullptr when it does not fit.
__device__ __forceinline__ unsigned char* Reserve(const BufferDesc& d, uint32_t bytes) {
  if (d.capacity < kHeaderBytes) return nullptr;
  HeaderView* h = reinterpret_cast<HeaderView*>(d.ptr);
  const unsigned long long off = atomicAdd(&h->used, (unsigned long long)bytes);
  if (kHeaderBytes + off + bytes > d.capacity) return nullptr;
  return reinterpret_cast<unsigned char*>(d.ptr) + kHeaderBytes + off;
}
__device__ __forceinline__ void StampHeader(const BufferDesc& d) {
  HeaderView* h = reinterpret_cast<HeaderView*>(d.ptr);
  h->magic = kMagic;  // the same constants from every lane: benign
  h->version = kAbiVersion;
  h->capacity = d.capacity;
  h->header_bytes = kHeaderBytes;
  h->record_bytes = kRecordBytes;
  h->lane_entry_bytes = kLaneEntryBytes;
  h->chunk_entry_bytes = kChunkEntryBytes;
}

template <class Cfg>
class Recorder {
 public:
  __device__ __forceinline__ Recorder(typename Cfg::Storage& storage, LaneSpec lane)
      : slots_(nullptr), slots_smem_(0), count_(0), seq_(0), lost_(0), group_(lane.group), grouping_(lane.grouping) {
    const BufferDesc d = strata_region_buffer;
    active_ = lane.leader && d.ptr != 0 && (d.flags & kFlagOff) == 0 && d.capacity >= kHeaderBytes &&
              lane.group < Cfg::kMaxLanes;
    if (active_) {
      slots_ = storage.slots[lane.group];
      slots_smem_ = static_cast<uint32_t>(__cvta_generic_to_shared(slots_));
      gt_start_ = GlobalTimer();
      clk_start_ = Clock64();
    }
#if defined(STRATA_REGIONS_WARP_SKIP)
    // Warps without a recording thread branch over the marker code (a warp-uniform flag, no
    // convergence barrier). Measured on GEMMs (docs/benchmarks.md): a little cheaper and more
    // accurate where markers are sparse, costlier where they are dense (the branches split the
    // caller's basic blocks), hence not the default.
    warp_records_ = __any_sync(__activemask(), active_);
#endif
  }
  // Branch-free in circular mode: every thread of the lane reads the clock and advances the
  // count, only the leader's store is enabled. A branch around the record (the first version)
  // split the caller's code into basic blocks at every marker, which cost GEMMs 7-15% with no
  // buffer at all (H100, docs/benchmarks.md); straight-line code leaves ptxas free to schedule.
  //
  // Before the clock read, a warp sync over the active threads (no instruction of its own: ptxas
  // emits a NOP that waits). ptxas lowers bar.sync to BAR.SYNC.DEFER_BLOCKING: the warp runs on
  // past a barrier and stalls only at an instruction that needs it to be complete, so a clock
  // read right after __syncthreads() or a named barrier read the time before the wait. On the
  // H100 a producer's wait on its ring's empty slots measured 14 ns instead of 536 ns, the rest
  // showing up as an unexplained gap (test/regions warpspec case). The sync costs 1.5 cycles a
  // record (13.2 -> 14.7, docs/benchmarks.md). __activemask(), not a full mask: markers may sit
  // in divergent code.
  __device__ __forceinline__ void Mark(uint32_t tag) {
#if defined(STRATA_REGIONS_WARP_SKIP)
    if (!warp_records_) return;
#endif
    uint32_t s;
    if (Cfg::kMode == kCircular) {
      s = count_ & (Cfg::kCapacity - 1u);
    } else {
      s = count_ - seq_ * Cfg::kCapacity;
      if (active_ && s >= Cfg::kCapacity) {  // full: spill first, so that the clock is read after it
        Flush();
        s = count_ - seq_ * Cfg::kCapacity;
      }
    }
    __syncwarp(__activemask());
    const uint32_t c = MarkerClock32();
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %3, 0;\n\t@p st.shared.v2.u32 [%0], {%1, %2};\n\t}" ::"r"(
            slots_smem_ + s * 8u),
        "r"(tag), "r"(c), "r"(static_cast<uint32_t>(active_)));
    ++count_;
  }
  __device__ __forceinline__ void Finalize() {
    if (!active_) return;
    active_ = false;
    const uint64_t gt_end = GlobalTimer();
    const uint64_t clk_end = Clock64();
    const BufferDesc d = strata_region_buffer;
    StampHeader(d);
    HeaderView* h = reinterpret_cast<HeaderView*>(d.ptr);
    const uint32_t kept = count_ < Cfg::kCapacity ? count_ : Cfg::kCapacity;
    const uint32_t here = Cfg::kMode == kCircular ? kept : (count_ - seq_ * Cfg::kCapacity);
    const uint32_t bytes = kLaneEntryBytes + here * kRecordBytes;
    unsigned char* p = Reserve(d, bytes);
    if (p == nullptr) {
      atomicAdd(&h->lanes_dropped, 1u);
      atomicAdd(&h->records_dropped, (unsigned long long)here);
      return;
    }
    LaneEntry e;
    e.kind = kEntryLane;
    e.bytes = bytes;
    e.block_linear = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    e.group = group_;
    e.block_x = blockIdx.x;
    e.block_y = blockIdx.y;
    e.block_z = blockIdx.z;
    e.smid = SmId();
    e.grouping = grouping_;
    e.mode = Cfg::kMode;
    e.capacity = Cfg::kCapacity;
    e.leader_thread = LinearThread();
    e.record_count = count_;
    e.records_here = here;
    e.overflow_count = Cfg::kMode == kCircular ? count_ - kept : lost_;
    e.chunks = seq_;
    e.gt_start = gt_start_;
    e.clk_start = clk_start_;
    e.gt_end = gt_end;
    e.clk_end = clk_end;
    *reinterpret_cast<LaneEntry*>(p) = e;
    unsigned long long* out = reinterpret_cast<unsigned long long*>(p + kLaneEntryBytes);
    if (Cfg::kMode == kCircular) {
      // Oldest first: the slot after the newest, when the ring has wrapped.
      const uint32_t first = count_ > Cfg::kCapacity ? count_ % Cfg::kCapacity : 0u;
      for (uint32_t i = 0; i < here; ++i) {
        uint32_t s = first + i;
        if (s >= Cfg::kCapacity) s -= Cfg::kCapacity;
        out[i] = slots_[s];
      }
    } else {
      for (uint32_t i = 0; i < here; ++i) out[i] = slots_[i];
    }
    __threadfence();
    atomicAdd(&h->lanes_written, 1u);
  }

 private:
  // Flush mode: the full shared buffer goes to a chunk in global memory; the time it took is
  // recorded (flush begin/end records) so that the decoder can take it out.
  __device__ __noinline__ void Flush() {
    const uint32_t c0 = Clock32();
    const BufferDesc d = strata_region_buffer;
    HeaderView* h = reinterpret_cast<HeaderView*>(d.ptr);
    const uint32_t bytes = kChunkEntryBytes + Cfg::kCapacity * kRecordBytes;
    unsigned char* p = Reserve(d, bytes);
    if (p != nullptr) {
      ChunkEntry e;
      e.kind = kEntryChunk;
      e.bytes = bytes;
      e.block_linear = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
      e.group = group_;
      e.seq = seq_;
      e.records_here = Cfg::kCapacity;
      e.first_record = seq_ * Cfg::kCapacity;
      e.reserved = 0;
      *reinterpret_cast<ChunkEntry*>(p) = e;
      // One thread copies: unrolled, with no aliasing between the two sides, so that eight loads
      // are in flight at a time instead of one load-store round trip per record.
      unsigned long long* __restrict__ out = reinterpret_cast<unsigned long long*>(p + kChunkEntryBytes);
      const unsigned long long* __restrict__ in = slots_;
#pragma unroll 8
      for (uint32_t i = 0; i < Cfg::kCapacity; ++i) out[i] = in[i];
      atomicAdd(&h->chunks_written, 1u);
    } else {
      atomicAdd(&h->chunks_dropped, 1u);
      atomicAdd(&h->records_dropped, (unsigned long long)Cfg::kCapacity);
      lost_ += Cfg::kCapacity;
    }
    ++seq_;
    // The two flush records open the next chunk; they count as records of the lane.
    const uint32_t c1 = Clock32();
    slots_[0] = (static_cast<unsigned long long>(c0) << 32) | Tag(kFlushBegin, 0, 0);
    slots_[1] = (static_cast<unsigned long long>(c1) << 32) | Tag(kFlushEnd, 0, 0);
    count_ += 2;
  }

  unsigned long long* slots_;
  uint32_t slots_smem_;
  uint32_t count_, seq_, lost_;
  uint32_t group_, grouping_;
  bool active_;
#if defined(STRATA_REGIONS_WARP_SKIP)
  bool warp_records_;
#endif
  uint64_t gt_start_, clk_start_;
};

// The calibration kernel (for the runtime at start-up, and test/regions): one lane, three passes,
// each a region of the calibration ids below; the decoder's CalibrateRecordCost reads them.
//   region 1: `n` steps of 8 dependent FMAs, no records inside       -> D1 = W + c
//   region 2: the same steps, each inside a start/end pair (region 0) -> D2 = W + c + 2n c
//   region 3: n start/end pairs back to back                         -> D3 = c + 2n c_b2b
// c = (D2 - D1) / 2n is what a record adds to the code around it (what replay takes out);
// c_b2b is the latency of a record right after another. Launch <<<1, 32>>> after zeroing a buffer
// of at least 64 + 96 + 8 * (4n + 6) bytes; 4n + 6 <= Cfg::kCapacity.
constexpr uint32_t kCalibBaseline = 1, kCalibMarked = 2, kCalibBackToBack = 3;
template <class Cfg>
__global__ void CalibrationKernel(uint32_t n) {
  __shared__ typename Cfg::Storage storage;
  Recorder<Cfg> r(storage, BlockLane());
  float x = threadIdx.x * 1e-3f;
  asm volatile("" : "+f"(x)::"memory");
  r.Mark(Tag(kStart, kCalibBaseline, 0));
#pragma unroll 1
  for (uint32_t i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) x = x * 0.999f + 0.5f;
    asm volatile("" : "+f"(x)::"memory");
  }
  r.Mark(Tag(kEnd, kCalibBaseline, 0));
  r.Mark(Tag(kStart, kCalibMarked, 0));
#pragma unroll 1
  for (uint32_t i = 0; i < n; ++i) {
    r.Mark(Tag(kStart, 0, 0));
#pragma unroll
    for (int j = 0; j < 8; ++j) x = x * 0.999f + 0.5f;
    asm volatile("" : "+f"(x)::"memory");
    r.Mark(Tag(kEnd, 0, 0));
  }
  r.Mark(Tag(kEnd, kCalibMarked, 0));
  r.Mark(Tag(kStart, kCalibBackToBack, 0));
#pragma unroll 1
  for (uint32_t i = 0; i < n; ++i) {
    r.Mark(Tag(kStart, 0, 0));
    r.Mark(Tag(kEnd, 0, 0));
  }
  r.Mark(Tag(kEnd, kCalibBackToBack, 0));
  // Keeps the FMA chains alive (x converges to 500, never this): without a use of x, nvcc 13.0
  // deleted them and the first two passes measured records back to back.
  if (x == 1234.5f) r.Mark(Tag(kEnd, kMaxRegionId, 0));
  r.Finalize();
}

}  // namespace regions
}  // namespace strata

#define STRATA_REGIONS_SHARED(Cfg, name) __shared__ typename Cfg::Storage name
#define STRATA_REGIONS_BEGIN(Cfg, prof, storage, lane) \
  ::strata::regions::Recorder<Cfg> prof((storage), (lane))
#define STRATA_REGIONS_CHECK_ID_(id) \
  static_assert((id) >= 0 && (id) <= (int)::strata::regions::kMaxRegionId, "region id: 0..4095")
#define STRATA_REGION_START(prof, id)                                                         \
  do {                                                                                        \
    STRATA_REGIONS_CHECK_ID_(id);                                                             \
    (prof).Mark(::strata::regions::Tag(::strata::regions::kStart, (uint32_t)(id), 0u));      \
  } while (0)
#define STRATA_REGION_END(prof, id)                                                           \
  do {                                                                                        \
    STRATA_REGIONS_CHECK_ID_(id);                                                             \
    (prof).Mark(::strata::regions::Tag(::strata::regions::kEnd, (uint32_t)(id), 0u));        \
  } while (0)
// The second start of an async region: the thread now waits for what it issued at START.
#define STRATA_REGION_WAIT(prof, id) STRATA_REGION_START(prof, id)
// A loop region: START/END(id) around the loop and ITER_START/ITER_END(id, i) around each
// iteration (the iteration index is kept modulo 2^16; the decoder unwraps it).
#define STRATA_ITER_START(prof, id, iter)                                                       \
  do {                                                                                          \
    STRATA_REGIONS_CHECK_ID_(id);                                                               \
    (prof).Mark(::strata::regions::Tag(::strata::regions::kIterStart, (uint32_t)(id),           \
                                       (uint32_t)(iter)));                                      \
  } while (0)
#define STRATA_ITER_END(prof, id, iter)                                                         \
  do {                                                                                          \
    STRATA_REGIONS_CHECK_ID_(id);                                                               \
    (prof).Mark(                                                                                \
        ::strata::regions::Tag(::strata::regions::kIterEnd, (uint32_t)(id), (uint32_t)(iter))); \
  } while (0)
// Named barriers (mbarriers, bar.sync/bar.arrive ids, a ring's full/empty slots): one record
// each, so that the core can tell which lane released which (docs/regions.md "Barrier markers").
// `bar` is an id from the same space as regions (0..4095; name it in STRATA_REGION_NAMES), `use`
// says which phase: an arrive and the waits it releases carry the same use index (kept modulo
// 2^16), e.g. the k-step whose tile the slot holds. ARRIVE right before the arrive instruction;
// WAIT_START before the wait, WAIT_END after it returns (the pair shows as a wait interval of
// the barrier's id).
#define STRATA_BARRIER_ARRIVE(prof, bar, use)                                                  \
  do {                                                                                        \
    STRATA_REGIONS_CHECK_ID_(bar);                                                            \
    (prof).Mark(::strata::regions::Tag(::strata::regions::kBarrierArrive, (uint32_t)(bar),    \
                                       (uint32_t)(use)));                                     \
  } while (0)
#define STRATA_BARRIER_WAIT_START(prof, bar, use)                                              \
  do {                                                                                        \
    STRATA_REGIONS_CHECK_ID_(bar);                                                            \
    (prof).Mark(::strata::regions::Tag(::strata::regions::kBarrierWaitStart, (uint32_t)(bar), \
                                       (uint32_t)(use)));                                     \
  } while (0)
#define STRATA_BARRIER_WAIT_END(prof, bar, use)                                                \
  do {                                                                                        \
    STRATA_REGIONS_CHECK_ID_(bar);                                                            \
    (prof).Mark(::strata::regions::Tag(::strata::regions::kBarrierWaitEnd, (uint32_t)(bar),   \
                                       (uint32_t)(use)));                                     \
  } while (0)
#define STRATA_REGIONS_FINALIZE(prof) (prof).Finalize()

#endif  // STRATA_REGIONS_DISABLED
