// Decoder and trace replay for in-kernel region buffers (docs/regions.md "The buffer").
#include "strata/region_decoder/decode.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

namespace strata::region_decoder {
namespace {

template <class T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

constexpr int64_t kWrap = int64_t(1) << 32;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Chunk {
  uint32_t seq = 0, first_record = 0;
  std::vector<uint64_t> words;
};

// Issues are summed per (kind, region): one line per kind of problem, with counts.
class IssueSink {
 public:
  explicit IssueSink(std::vector<Issue>& out) : out_(out) {}
  void Add(IssueKind k, int32_t lane, int32_t region, uint64_t count, const std::string& msg) {
    const auto key = std::make_pair(static_cast<int>(k), region);
    auto it = index_.find(key);
    if (it == index_.end()) {
      index_[key] = out_.size();
      out_.push_back(Issue{k, lane, region, count, msg});
      lanes_[key] = 1;
    } else {
      Issue& is = out_[it->second];
      is.count += count;
      ++lanes_[key];
      pending_[it->second] = true;
    }
  }
  // Notes how many lanes an aggregated issue covers.
  void Finish() {
    for (auto& [key, idx] : index_) {
      if (lanes_[key] > 1 && out_[idx].lane >= 0) {
        out_[idx].message += " (" + std::to_string(lanes_[key]) + " lanes; first: lane " +
                             std::to_string(out_[idx].lane) + ")";
      }
    }
  }

 private:
  std::vector<Issue>& out_;
  std::map<std::pair<int, int32_t>, size_t> index_;
  std::map<std::pair<int, int32_t>, uint64_t> lanes_;
  std::map<size_t, bool> pending_;
};

Record MakeRecord(uint64_t w) {
  Record r;
  const uint32_t tag = static_cast<uint32_t>(w);
  r.kind = static_cast<RecordKind>(std::min<uint32_t>(tag >> 28, 15));
  r.region = static_cast<uint16_t>((tag >> 16) & 0xFFF);
  r.iter16 = static_cast<uint16_t>(tag & 0xFFFF);
  r.clock32 = static_cast<uint32_t>(w >> 32);
  return r;
}

void DecodeLane(Trace& t, uint32_t li, IssueSink& issues, const DecodeOptions& opt) {
  Lane& lane = t.lanes[li];
  const LaneMeta& m = lane.meta;
  auto& recs = lane.records;
  const int32_t L = static_cast<int32_t>(li);
  const bool overflowed = m.overflow_count > 0;
  if (overflowed) {
    if (m.mode == 0) {
      issues.Add(IssueKind::kOverflow, L, -1, m.overflow_count,
                 "circular buffer full: the oldest records were overwritten (capacity " +
                     std::to_string(m.capacity) + " records per lane); intervals that began before the kept "
                     "records are missing and their ends show as unmatched");
    } else {
      issues.Add(IssueKind::kOverflow, L, -1, m.overflow_count,
                 "flush buffer: chunks lost for want of space in the global buffer");
    }
  }
  // Unwrap the 32-bit clocks backwards from the lane's 64-bit end clock.
  int64_t t64 = static_cast<int64_t>(m.clk_end);
  for (size_t i = recs.size(); i-- > 0;) {
    const uint32_t d = static_cast<uint32_t>(static_cast<uint32_t>(t64) - recs[i].clock32);
    t64 -= d;
    recs[i].cycles = t64;
  }
  if (!recs.empty()) {
    const int64_t first = recs.front().cycles;
    const int64_t clk_start = static_cast<int64_t>(m.clk_start);
    const int64_t wraps = (static_cast<int64_t>(m.clk_end) >> 32) - (first >> 32);
    if (first < clk_start) {
      issues.Add(IssueKind::kClockAmbiguous, L, -1, 1,
                 "records older than the lane's start clock: the clock values are inconsistent");
    } else if (first - clk_start >= kWrap && !overflowed) {
      issues.Add(IssueKind::kClockAmbiguous, L, -1, static_cast<uint64_t>((first - clk_start) / kWrap),
                 "2^32 cycles or more between the lane's start and its first record after unwrapping: a gap "
                 "between two records of 2^32 cycles or more cannot be seen in 32-bit clocks, so wraps may "
                 "be missing and some intervals be too short by multiples of 2^32 cycles");
    }
    if (wraps > 0) {
      issues.Add(IssueKind::kClockWrap, L, -1, static_cast<uint64_t>(wraps),
                 "the 32-bit record clock wrapped; unwrapped with the lane's 64-bit clock pair");
    }
  }
  // Rate and axis.
  const double gt_span = double(m.gt_end) - double(m.gt_start);
  const double clk_span = double(m.clk_end) - double(m.clk_start);
  lane.measured_cycles_per_ns = gt_span > 0 ? clk_span / gt_span : 0;
  const double rate = t.cycles_per_ns > 0 ? t.cycles_per_ns : (lane.measured_cycles_per_ns > 0 ? lane.measured_cycles_per_ns : 1.0);
  lane.cycles_per_ns = rate;
  const double base_ns = double(m.gt_start - t.origin_ns) + 0.5 * (gt_span - clk_span / rate);
  const int64_t c0 = static_cast<int64_t>(m.clk_start);
  auto ns = [&](double cycles) { return base_ns + (cycles - double(c0)) / rate; };
  // Replay: what the records before each one cost, and the flushes.
  std::vector<double> removed(recs.size() + 1, 0.0);
  {
    auto start_cost = [&](const Record& r) {
      if (r.kind != RecordKind::kStart && r.kind != RecordKind::kIterStart) return 0.0;
      auto it = opt.start_cost_cycles.find(r.region);
      return it == opt.start_cost_cycles.end() ? 0.0 : it->second;
    };
    // Records a circular lane lost count as markers; their start costs in the proportion of the kept ones.
    double started = 0;
    if (lane.first_record_index > 0 && !opt.start_cost_cycles.empty() && !recs.empty()) {
      double kept = 0;
      for (const Record& r : recs) kept += start_cost(r);
      started = double(lane.first_record_index) * kept / double(recs.size());
    }
    double flush = 0;
    uint64_t markers = lane.first_record_index;
    int64_t flush_begin = 0;
    for (size_t i = 0; i < recs.size(); ++i) {
      const Record& r = recs[i];
      if (r.kind == RecordKind::kFlushBegin) {
        flush_begin = r.cycles;
      } else if (r.kind == RecordKind::kFlushEnd) {
        flush += double(r.cycles - flush_begin);
      }
      removed[i] = opt.record_cost_cycles * double(markers) + started + flush;
      if (r.kind != RecordKind::kFlushBegin && r.kind != RecordKind::kFlushEnd) ++markers;
      started += start_cost(r);
    }
    removed[recs.size()] = opt.record_cost_cycles * double(markers) + started + flush;
    lane.removed_cycles = removed[recs.size()];
  }
  lane.start_ns = ns(double(c0));
  lane.end_ns = ns(double(m.clk_end) - lane.removed_cycles);
  const size_t end_pos = recs.size();
  auto at = [&](size_t i) { return i < recs.size() ? double(recs[i].cycles) : double(m.clk_end); };
  auto replayed_ns = [&](size_t i) { return ns(at(i) - removed[i]); };

  // Pairing, per region id (async regions need not nest).
  struct Open {
    size_t start;
    int64_t wait = -1;
    int64_t iteration = -1;
    int64_t use = -1;  // a barrier wait: the use index
  };
  std::map<uint16_t, std::vector<Open>> open, open_iter, open_wait;
  std::map<uint16_t, int64_t> last_iter, last_use;
  // Iteration and barrier-use indices are kept modulo 2^16: unwrapped against the last one seen.
  auto unwrap = [](std::map<uint16_t, int64_t>& last, uint16_t id, uint16_t low) {
    int64_t v = low;
    auto it = last.find(id);
    if (it != last.end()) {
      int64_t cand = (it->second & ~int64_t(0xFFFF)) + low;
      if (cand - it->second > 0x8000) cand -= 0x10000;
      if (it->second - cand > 0x8000) cand += 0x10000;
      v = cand;
    }
    last[id] = v;
    return v;
  };
  const size_t first_interval = t.intervals.size();
  auto emit = [&](uint16_t region, const Open& o, size_t end, bool unmatched) {
    Interval iv;
    iv.lane = li;
    iv.region = region;
    iv.iteration = o.iteration;
    iv.start_index = static_cast<uint32_t>(o.start);
    iv.end_index = static_cast<uint32_t>(end);
    iv.start_cycles = static_cast<int64_t>(at(o.start));
    iv.end_cycles = static_cast<int64_t>(at(end));
    iv.raw_start_ns = ns(at(o.start));
    iv.raw_end_ns = ns(at(end));
    iv.start_ns = replayed_ns(o.start);
    iv.end_ns = replayed_ns(end);
    if (o.wait >= 0) {
      iv.wait_ns = iv.end_ns - replayed_ns(static_cast<size_t>(o.wait));
      iv.raw_wait_ns = iv.raw_end_ns - ns(at(static_cast<size_t>(o.wait)));
    }
    iv.unmatched = unmatched;
    iv.barrier_use = o.use;
    t.intervals.push_back(iv);
  };
  const std::string lost_hint =
      overflowed ? " (this lane overflowed: the start was probably among the overwritten records)" : "";
  for (size_t i = 0; i < recs.size(); ++i) {
    const Record& r = recs[i];
    switch (r.kind) {
      case RecordKind::kStart: {
        auto& st = open[r.region];
        if (!st.empty() && st.back().wait < 0) {
          st.back().wait = static_cast<int64_t>(i);  // two starts, one end: the second is the wait
        } else {
          if (!st.empty()) {
            issues.Add(IssueKind::kExtraStart, L, r.region, 1,
                       "a third start of a region before its end (a region id must not nest in itself; "
                       "the second start marks an async wait)");
          }
          st.push_back(Open{i});
        }
        break;
      }
      case RecordKind::kEnd: {
        auto& st = open[r.region];
        if (st.empty()) {
          issues.Add(IssueKind::kUnmatchedEnd, L, r.region, 1, "an end without its start" + lost_hint);
        } else {
          emit(r.region, st.back(), i, false);
          st.pop_back();
        }
        break;
      }
      case RecordKind::kIterStart: {
        const int64_t it = unwrap(last_iter, r.region, r.iter16);
        Open o{i};
        o.iteration = it;
        open_iter[r.region].push_back(o);
        break;
      }
      case RecordKind::kIterEnd: {
        auto& st = open_iter[r.region];
        size_t k = st.size();
        while (k > 0 && (st[k - 1].iteration & 0xFFFF) != r.iter16) --k;
        if (k == 0) {
          issues.Add(IssueKind::kUnmatchedEnd, L, r.region, 1,
                     "an iteration end without its start (iteration " + std::to_string(r.iter16) + ")" + lost_hint);
          break;
        }
        for (size_t j = st.size(); j-- > k;) {
          issues.Add(IssueKind::kUnmatchedStart, L, r.region, 1, "an iteration start without its end");
          emit(r.region, st[j], end_pos, true);
        }
        emit(r.region, st[k - 1], i, false);
        st.resize(k - 1);
        break;
      }
      case RecordKind::kFlushBegin:
      case RecordKind::kFlushEnd:
        break;
      case RecordKind::kBarrierArrive: {
        BarrierArrive a;
        a.lane = li;
        a.barrier = r.region;
        a.use = unwrap(last_use, r.region, r.iter16);
        a.index = static_cast<uint32_t>(i);
        a.cycles = static_cast<int64_t>(at(i));
        a.raw_ns = ns(at(i));
        a.ns = replayed_ns(i);
        t.arrives.push_back(a);
        break;
      }
      case RecordKind::kBarrierWaitStart: {
        Open o{i};
        o.use = unwrap(last_use, r.region, r.iter16);
        open_wait[r.region].push_back(o);
        break;
      }
      case RecordKind::kBarrierWaitEnd: {
        auto& st = open_wait[r.region];
        size_t k = st.size();
        while (k > 0 && (st[k - 1].use & 0xFFFF) != r.iter16) --k;
        if (k == 0) {
          issues.Add(IssueKind::kUnmatchedEnd, L, r.region, 1,
                     "a barrier wait end without its start (use " + std::to_string(r.iter16) + ")" + lost_hint);
          break;
        }
        for (size_t j = st.size(); j-- > k;) {
          issues.Add(IssueKind::kUnmatchedStart, L, r.region, 1, "a barrier wait start without its end");
          emit(r.region, st[j], end_pos, true);
        }
        emit(r.region, st[k - 1], i, false);
        st.resize(k - 1);
        break;
      }
      default:
        issues.Add(IssueKind::kTruncated, L, -1, 1, "a record of unknown kind");
        break;
    }
  }
  for (auto* table : {&open, &open_iter, &open_wait}) {
    for (auto& [region, st] : *table) {
      for (const Open& o : st) {
        issues.Add(IssueKind::kUnmatchedStart, L, region, 1,
                   "a start without its end: the interval is closed at the lane's end and marked unmatched");
        emit(region, o, end_pos, true);
      }
    }
  }
  // Order by start, then nesting: an interval encloses another when it starts before and ends
  // after it (in record order; unmatched ones end at the lane's end) and is not async.
  std::sort(t.intervals.begin() + first_interval, t.intervals.end(), [](const Interval& a, const Interval& b) {
    if (a.start_index != b.start_index) return a.start_index < b.start_index;
    return a.end_index > b.end_index;
  });
  std::vector<size_t> active;
  for (size_t i = first_interval; i < t.intervals.size(); ++i) {
    Interval& cur = t.intervals[i];
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](size_t a) { return t.intervals[a].end_index < cur.start_index; }),
                 active.end());
    uint32_t depth = 0;
    int32_t parent = -1;
    for (size_t a : active) {
      const Interval& o = t.intervals[a];
      // Async intervals (with a wait) overlap the work issued after them; they enclose nothing.
      if (o.raw_wait_ns >= 0) continue;
      if (o.end_index > cur.end_index || (o.end_index == cur.end_index && o.unmatched)) {
        ++depth;
        if (parent < 0 || t.intervals[parent].start_index < o.start_index) parent = static_cast<int32_t>(a);
      }
    }
    cur.depth = depth;
    cur.parent = parent;
    active.push_back(i);
  }
}

}  // namespace

const char* IssueName(IssueKind k) {
  switch (k) {
    case IssueKind::kEmpty: return "empty";
    case IssueKind::kBadHeader: return "bad_header";
    case IssueKind::kTruncated: return "truncated";
    case IssueKind::kLanesDropped: return "lanes_dropped";
    case IssueKind::kChunksDropped: return "chunks_dropped";
    case IssueKind::kMissingChunk: return "missing_chunk";
    case IssueKind::kOverflow: return "overflow";
    case IssueKind::kUnmatchedStart: return "unmatched_start";
    case IssueKind::kUnmatchedEnd: return "unmatched_end";
    case IssueKind::kClockWrap: return "clock_wrap";
    case IssueKind::kClockAmbiguous: return "clock_ambiguous";
    case IssueKind::kExtraStart: return "extra_start";
    case IssueKind::kNoClockRate: return "no_clock_rate";
  }
  return "unknown";
}

bool Trace::HasIssue(IssueKind k) const { return CountIssues(k) > 0; }
size_t Trace::CountIssues(IssueKind k) const {
  size_t n = 0;
  for (const Issue& i : issues) n += i.kind == k;
  return n;
}

Trace Decode(const uint8_t* data, size_t size, const DecodeOptions& opt) {
  Trace t;
  t.bytes = size;
  t.record_cost_cycles = opt.record_cost_cycles;
  t.start_cost_cycles = opt.start_cost_cycles;
  IssueSink issues(t.issues);
  auto done = [&]() -> Trace& {
    issues.Finish();
    return t;
  };
  if (data == nullptr || size == 0) {
    issues.Add(IssueKind::kEmpty, -1, -1, 0,
               "no buffer: the kernel was launched without one (markers recorded nothing)");
    return done();
  }
  if (size < kHeaderBytes) {
    issues.Add(IssueKind::kTruncated, -1, -1, 0,
               "buffer of " + std::to_string(size) + " bytes, smaller than the 64-byte header");
    return done();
  }
  Header& h = t.header;
  h.magic = Load<uint32_t>(data);
  h.version = Load<uint32_t>(data + 4);
  h.capacity = Load<uint64_t>(data + 8);
  h.used = Load<uint64_t>(data + 16);
  h.lanes_written = Load<uint32_t>(data + 24);
  h.lanes_dropped = Load<uint32_t>(data + 28);
  h.records_dropped = Load<uint64_t>(data + 32);
  h.chunks_written = Load<uint32_t>(data + 40);
  h.chunks_dropped = Load<uint32_t>(data + 44);
  if (h.magic == 0 && h.used == 0) {
    issues.Add(IssueKind::kEmpty, -1, -1, 0,
               "no lane finished: the buffer is as zeroed (markers compiled out, the kernel launched without "
               "the buffer, a lane that never reached finalize, or the kernel did not run)");
    return done();
  }
  if (h.magic != kMagic) {
    if (h.magic == 0 && h.used > 0) {
      issues.Add(IssueKind::kTruncated, -1, -1, 0,
                 "space was reserved but no lane wrote the header: the buffer (capacity " +
                     std::to_string(h.capacity) + ") is smaller than one lane entry, or the kernel stopped");
      if (h.lanes_dropped)
        issues.Add(IssueKind::kLanesDropped, -1, -1, h.lanes_dropped, "lanes did not fit in the buffer");
    } else {
      issues.Add(IssueKind::kBadHeader, -1, -1, 0, "not a region buffer (bad magic)");
    }
    return done();
  }
  if (h.version != kAbiVersion) {
    issues.Add(IssueKind::kBadHeader, -1, -1, 0, "region buffer version " + std::to_string(h.version) +
                                                     " (this decoder reads " + std::to_string(kAbiVersion) + ")");
    return done();
  }
  if (h.lanes_dropped > 0) {
    issues.Add(IssueKind::kLanesDropped, -1, -1, h.lanes_dropped,
               std::to_string(h.lanes_dropped) + " lanes (" + std::to_string(h.records_dropped) +
                   " records with the chunks below) did not fit in the buffer of " + std::to_string(h.capacity) +
                   " bytes: give the launch a larger buffer");
  }
  if (h.chunks_dropped > 0) {
    issues.Add(IssueKind::kChunksDropped, -1, -1, h.chunks_dropped,
               std::to_string(h.chunks_dropped) + " flushed chunks did not fit in the buffer");
  }
  const uint64_t written_end = std::min<uint64_t>(h.capacity, kHeaderBytes + h.used);
  if (size < written_end) {
    issues.Add(IssueKind::kTruncated, -1, -1, written_end - size,
               "the buffer read back is shorter (" + std::to_string(size) + " bytes) than what was written (" +
                   std::to_string(written_end) + ")");
  }
  const size_t end = static_cast<size_t>(std::min<uint64_t>(size, written_end));
  // Walk the entries.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Chunk>> chunks;
  size_t off = kHeaderBytes;
  while (off + 8 <= end) {
    const uint32_t kind = Load<uint32_t>(data + off);
    const uint32_t bytes = Load<uint32_t>(data + off + 4);
    if (kind == 0 && bytes == 0) {
      issues.Add(IssueKind::kTruncated, -1, -1, 0,
                 "an entry was reserved but never written at byte " + std::to_string(off) +
                     " (the kernel stopped before the lane finished?)");
      break;
    }
    const bool bad_size = bytes % 8 != 0 || off + bytes > end ||
                          (kind == kEntryLane && bytes < kLaneEntryBytes) ||
                          (kind == kEntryChunk && bytes < kChunkEntryBytes);
    if ((kind != kEntryLane && kind != kEntryChunk) || bad_size) {
      issues.Add(IssueKind::kTruncated, -1, -1, 0,
                 "malformed entry at byte " + std::to_string(off) + " (kind " + std::to_string(kind) + ", " +
                     std::to_string(bytes) + " bytes); the rest is skipped");
      break;
    }
    const uint8_t* p = data + off;
    if (kind == kEntryLane) {
      Lane lane;
      LaneMeta& m = lane.meta;
      m.block_linear = Load<uint32_t>(p + 8);
      m.group = Load<uint32_t>(p + 12);
      m.block[0] = Load<uint32_t>(p + 16);
      m.block[1] = Load<uint32_t>(p + 20);
      m.block[2] = Load<uint32_t>(p + 24);
      m.smid = Load<uint32_t>(p + 28);
      m.grouping = Load<uint32_t>(p + 32);
      m.mode = Load<uint32_t>(p + 36);
      m.capacity = Load<uint32_t>(p + 40);
      m.leader_thread = Load<uint32_t>(p + 44);
      m.record_count = Load<uint32_t>(p + 48);
      m.records_here = Load<uint32_t>(p + 52);
      m.overflow_count = Load<uint32_t>(p + 56);
      m.chunks = Load<uint32_t>(p + 60);
      m.gt_start = Load<uint64_t>(p + 64);
      m.clk_start = Load<uint64_t>(p + 72);
      m.gt_end = Load<uint64_t>(p + 80);
      m.clk_end = Load<uint64_t>(p + 88);
      if (uint64_t(kLaneEntryBytes) + uint64_t(m.records_here) * kRecordBytes != bytes) {
        issues.Add(IssueKind::kTruncated, -1, -1, 0,
                   "lane entry at byte " + std::to_string(off) + " disagrees with its record count; skipped");
      } else {
        for (uint32_t i = 0; i < m.records_here; ++i)
          lane.records.push_back(MakeRecord(Load<uint64_t>(p + kLaneEntryBytes + 8ull * i)));
        t.lanes.push_back(std::move(lane));
      }
    } else {
      Chunk c;
      const uint32_t block = Load<uint32_t>(p + 8), group = Load<uint32_t>(p + 12);
      c.seq = Load<uint32_t>(p + 16);
      const uint32_t n = Load<uint32_t>(p + 20);
      c.first_record = Load<uint32_t>(p + 24);
      if (uint64_t(kChunkEntryBytes) + uint64_t(n) * kRecordBytes != bytes) {
        issues.Add(IssueKind::kTruncated, -1, -1, 0,
                   "chunk entry at byte " + std::to_string(off) + " disagrees with its record count; skipped");
      } else {
        for (uint32_t i = 0; i < n; ++i) c.words.push_back(Load<uint64_t>(p + kChunkEntryBytes + 8ull * i));
        chunks[{block, group}].push_back(std::move(c));
      }
    }
    off += bytes;
  }
  // Lanes in (block, group) order; flushed chunks go in front of their lane's own records.
  std::sort(t.lanes.begin(), t.lanes.end(), [](const Lane& a, const Lane& b) {
    return std::tie(a.meta.block_linear, a.meta.group) < std::tie(b.meta.block_linear, b.meta.group);
  });
  for (size_t li = 0; li < t.lanes.size(); ++li) {
    Lane& lane = t.lanes[li];
    auto it = chunks.find({lane.meta.block_linear, lane.meta.group});
    if (lane.meta.mode == 0) {
      lane.first_record_index = lane.meta.overflow_count;
    }
    if (lane.meta.chunks == 0) continue;
    std::vector<Chunk> mine;
    if (it != chunks.end()) {
      mine = std::move(it->second);
      chunks.erase(it);
    }
    std::sort(mine.begin(), mine.end(), [](const Chunk& a, const Chunk& b) { return a.seq < b.seq; });
    std::vector<Record> all;
    uint32_t expect = 0;
    for (const Chunk& c : mine) {
      if (c.seq != expect) {
        issues.Add(IssueKind::kMissingChunk, static_cast<int32_t>(li), -1, c.seq - expect,
                   "flushed chunks of this lane are missing (lost for want of space); intervals across the "
                   "gap are unmatched");
      }
      expect = c.seq + 1;
      for (uint64_t w : c.words) all.push_back(MakeRecord(w));
    }
    if (expect != lane.meta.chunks) {
      issues.Add(IssueKind::kMissingChunk, static_cast<int32_t>(li), -1, lane.meta.chunks - expect,
                 "the last flushed chunks of this lane are missing");
    }
    all.insert(all.end(), lane.records.begin(), lane.records.end());
    lane.records = std::move(all);
  }
  if (!chunks.empty()) {
    issues.Add(IssueKind::kTruncated, -1, -1, chunks.size(),
               "flushed chunks whose lane entry is missing (the lane did not fit or never finished)");
  }
  if (t.lanes.empty()) {
    issues.Add(IssueKind::kEmpty, -1, -1, 0, "no lane entry in the buffer");
    return done();
  }
  // The common axis: the earliest lane start; the rate: given, or the median of long lanes.
  t.origin_ns = t.lanes.front().meta.gt_start;
  std::vector<double> rates, all_rates;
  for (const Lane& l : t.lanes) {
    t.origin_ns = std::min<uint64_t>(t.origin_ns, l.meta.gt_start);
    const double gt = double(l.meta.gt_end) - double(l.meta.gt_start);
    if (gt <= 0 || l.meta.clk_end <= l.meta.clk_start) continue;
    const double r = (double(l.meta.clk_end) - double(l.meta.clk_start)) / gt;
    all_rates.push_back(r);
    if (gt >= opt.min_span_ns_for_rate) rates.push_back(r);
  }
  if (opt.cycles_per_ns > 0) {
    t.cycles_per_ns = opt.cycles_per_ns;
  } else if (!rates.empty()) {
    t.cycles_per_ns = Median(rates);
  } else {
    t.cycles_per_ns = all_rates.empty() ? 0 : Median(all_rates);
    issues.Add(IssueKind::kNoClockRate, -1, -1, 0,
               "no clock rate given and no lane longer than " + std::to_string(opt.min_span_ns_for_rate / 1000) +
                   " us: the cycles-to-ns rate comes from short lanes (globaltimer steps of 32 ns or more make "
                   "it coarse); pass the device's rate");
  }
  for (uint32_t li = 0; li < t.lanes.size(); ++li) DecodeLane(t, li, issues, opt);
  return done();
}

Trace DecodeFile(const std::string& path, const DecodeOptions& options) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    Trace t;
    t.issues.push_back(Issue{IssueKind::kEmpty, -1, -1, 0, "cannot read " + path});
    return t;
  }
  return Decode(bytes.data(), bytes.size(), options);
}

}  // namespace strata::region_decoder
