// A decoded region buffer: its lanes, their records, the intervals paired from them on one
// nanosecond axis (replayed: record cost and flushes taken out), and what could not be read
// (issues). Nothing is hidden: overflowed buffers, lost lanes, unmatched records and 32-bit
// clock wrap come back as issues.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "strata/region_decoder/buffer_layout.h"

namespace strata::region_decoder {

struct Record {
  RecordKind kind;
  uint16_t region;     // 0..4095
  uint16_t iter16;     // the iteration, modulo 2^16
  uint32_t clock32;    // low 32 bits of %clock64
  int64_t cycles = 0;  // unwrapped, on the lane's clock64 axis
};

struct Header {
  uint32_t magic = 0, version = 0;
  uint64_t capacity = 0, used = 0;
  uint32_t lanes_written = 0, lanes_dropped = 0;
  uint64_t records_dropped = 0;
  uint32_t chunks_written = 0, chunks_dropped = 0;
};

struct LaneMeta {
  uint32_t block_linear = 0, group = 0;
  uint32_t block[3] = {0, 0, 0};
  uint32_t smid = 0;
  uint32_t grouping = 0;  // 0 warp group, 1 warp, 2 custom
  uint32_t mode = 0;      // 0 circular, 1 flush
  uint32_t capacity = 0, leader_thread = 0;
  uint32_t record_count = 0, records_here = 0, overflow_count = 0, chunks = 0;
  uint64_t gt_start = 0, clk_start = 0, gt_end = 0, clk_end = 0;
};

struct Interval {
  uint32_t lane = 0;           // index into Trace::lanes
  uint16_t region = 0;
  int64_t iteration = -1;      // loop iterations (unwrapped); -1 for plain regions
  uint32_t depth = 0;          // intervals of the lane that enclose this one (by record order)
  int32_t parent = -1;         // the innermost enclosing interval (index into Trace::intervals)
  // Replayed times (record cost and flushes taken out), ns from Trace::origin_ns.
  double start_ns = 0, end_ns = 0;
  double raw_start_ns = 0, raw_end_ns = 0;  // as recorded
  int64_t start_cycles = 0, end_cycles = 0; // raw, lane clock64
  double wait_ns = -1;         // async: from the wait (second start) to the end, replayed; -1: none
  double raw_wait_ns = -1;
  uint32_t start_index = 0, end_index = 0;  // positions in the lane's records
  bool unmatched = false;      // the start has no end (end = the lane's end)
  // A barrier wait (STRATA_BARRIER_WAIT_START/END): `region` is the barrier's id and this the
  // use index it waited for (unwrapped); -1 for regions.
  int64_t barrier_use = -1;
  double duration_ns() const { return end_ns - start_ns; }
  double raw_duration_ns() const { return raw_end_ns - raw_start_ns; }
};

struct Lane {
  LaneMeta meta;
  std::vector<Record> records;  // program order; kept records only
  uint64_t first_record_index = 0;  // the lane's index of records[0] (circular overflow)
  double cycles_per_ns = 0;     // the rate used for this lane
  double measured_cycles_per_ns = 0;  // from the lane's own globaltimer/clock64 pairs
  double start_ns = 0, end_ns = 0;    // from Trace::origin_ns (end replayed)
  double removed_cycles = 0;    // record cost + flush time taken out by replay
};

// A lane's arrive on a named barrier (STRATA_BARRIER_ARRIVE): what releases the waits on the same
// barrier and use in the block's other lanes.
struct BarrierArrive {
  uint32_t lane = 0;       // index into Trace::lanes
  uint16_t barrier = 0;    // 0..4095, the names table's id space
  int64_t use = 0;         // the use index (unwrapped per lane and barrier)
  double ns = 0;           // replayed, from Trace::origin_ns
  double raw_ns = 0;
  int64_t cycles = 0;      // raw, lane clock64
  uint32_t index = 0;      // position in the lane's records
};

enum class IssueKind {
  kEmpty,             // no buffer / nothing finalized
  kBadHeader,         // not a region buffer, unknown version
  kTruncated,         // the bytes stop inside an entry, or an entry is malformed
  kLanesDropped,      // lanes that did not fit in the buffer
  kChunksDropped,     // flush chunks that did not fit
  kMissingChunk,      // a lane's flushed chunk is not in the buffer
  kOverflow,          // a circular lane overwrote its oldest records
  kUnmatchedStart,    // a start without its end
  kUnmatchedEnd,      // an end without its start
  kClockWrap,         // the 32-bit clock wrapped (unwrapped with the lane's clock64 pair)
  kClockAmbiguous,    // a gap of 2^32 cycles or more: wraps may be missing
  kExtraStart,        // a third start of one region without an end
  kNoClockRate,       // no rate given and no lane long enough to measure one
};
const char* IssueName(IssueKind kind);

struct Issue {
  IssueKind kind;
  int32_t lane = -1;     // -1: the whole buffer
  int32_t region = -1;
  uint64_t count = 1;    // records, lanes or wraps concerned
  std::string message;
};

// Per region: what each of its starts (or iteration starts) costs on top of the records, e.g. a
// k-step's wait in a software-pipelined loop (the other warps' markers its barrier waits for) or a
// warp-specialized loop paced by another role (record_cost_fit.h).
using StartCosts = std::map<uint16_t, double>;

struct DecodeOptions {
  double record_cost_cycles = 0;  // per record (CalibrateRecordCost); 0: no replay
  StartCosts start_cost_cycles;   // on top, per start of these regions
  double cycles_per_ns = 0;       // clock64 per ns on the device; 0: measured from the lanes
  double min_span_ns_for_rate = 50000;  // lanes shorter than this do not set the rate
};

struct Trace {
  Header header;
  std::vector<Lane> lanes;
  std::vector<Interval> intervals;  // lane by lane, in start order within a lane
  std::vector<BarrierArrive> arrives;  // lane by lane, in record order
  std::vector<Issue> issues;
  uint64_t origin_ns = 0;           // globaltimer of the earliest lane start
  double cycles_per_ns = 0;         // the trace-wide rate (given or median of long lanes)
  double record_cost_cycles = 0;
  StartCosts start_cost_cycles;     // DecodeOptions's
  size_t bytes = 0;
  bool HasIssue(IssueKind k) const;
  size_t CountIssues(IssueKind k) const;
};

}  // namespace strata::region_decoder
