// Region buffers in the layout of docs/regions.md (what the device writes), for tests of the
// decoder and of what the core builds on it.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "strata/region_decoder/decode.h"

namespace strata::region_decoder::testing {

struct Rec {
  uint32_t kind, id, iter;
  uint64_t clk;  // 64-bit; the record keeps the low 32 bits
};
struct LaneSpec {
  uint32_t block = 0, group = 0, mode = 0, capacity = 64, overflow = 0, chunks = 0, record_count = 0;
  uint64_t gt_start = 1000000, clk_start = 0, gt_end = 0, clk_end = 0;
  std::vector<Rec> recs;
  uint32_t smid = 7;
};
struct ChunkSpec {
  uint32_t block = 0, group = 0, seq = 0, first = 0;
  std::vector<Rec> recs;
};

inline uint64_t Word(const Rec& r) {
  const uint32_t tag = (r.kind << 28) | ((r.id & 0xFFF) << 16) | (r.iter & 0xFFFF);
  return (uint64_t(uint32_t(r.clk)) << 32) | tag;
}
template <class T>
inline void Put(std::vector<uint8_t>& b, size_t off, T v) {
  if (b.size() < off + sizeof v) b.resize(off + sizeof v);
  std::memcpy(b.data() + off, &v, sizeof v);
}

inline std::vector<uint8_t> Build(const std::vector<LaneSpec>& lanes, const std::vector<ChunkSpec>& chunks = {},
                           uint32_t lanes_dropped = 0) {
  std::vector<uint8_t> b(64, 0);
  size_t off = 64;
  for (const ChunkSpec& c : chunks) {
    const uint32_t bytes = 32 + 8 * c.recs.size();
    Put<uint32_t>(b, off, kEntryChunk);
    Put<uint32_t>(b, off + 4, bytes);
    Put<uint32_t>(b, off + 8, c.block);
    Put<uint32_t>(b, off + 12, c.group);
    Put<uint32_t>(b, off + 16, c.seq);
    Put<uint32_t>(b, off + 20, c.recs.size());
    Put<uint32_t>(b, off + 24, c.first);
    Put<uint32_t>(b, off + 28, 0);
    for (size_t i = 0; i < c.recs.size(); ++i) Put<uint64_t>(b, off + 32 + 8 * i, Word(c.recs[i]));
    off += bytes;
  }
  for (const LaneSpec& l : lanes) {
    const uint32_t bytes = 96 + 8 * l.recs.size();
    Put<uint32_t>(b, off, kEntryLane);
    Put<uint32_t>(b, off + 4, bytes);
    Put<uint32_t>(b, off + 8, l.block);
    Put<uint32_t>(b, off + 12, l.group);
    for (int k = 0; k < 3; ++k) Put<uint32_t>(b, off + 16 + 4 * k, k == 0 ? l.block : 0);
    Put<uint32_t>(b, off + 28, l.smid);
    Put<uint32_t>(b, off + 32, 0);
    Put<uint32_t>(b, off + 36, l.mode);
    Put<uint32_t>(b, off + 40, l.capacity);
    Put<uint32_t>(b, off + 44, l.group * 128);
    Put<uint32_t>(b, off + 48, l.record_count ? l.record_count : uint32_t(l.recs.size()) + l.overflow);
    Put<uint32_t>(b, off + 52, l.recs.size());
    Put<uint32_t>(b, off + 56, l.overflow);
    Put<uint32_t>(b, off + 60, l.chunks);
    Put<uint64_t>(b, off + 64, l.gt_start);
    Put<uint64_t>(b, off + 72, l.clk_start);
    Put<uint64_t>(b, off + 80, l.gt_end);
    Put<uint64_t>(b, off + 88, l.clk_end);
    for (size_t i = 0; i < l.recs.size(); ++i) Put<uint64_t>(b, off + 96 + 8 * i, Word(l.recs[i]));
    off += bytes;
  }
  Put<uint32_t>(b, 0, kMagic);
  Put<uint32_t>(b, 4, kAbiVersion);
  Put<uint64_t>(b, 8, uint64_t(1) << 30);
  Put<uint64_t>(b, 16, off - 64);
  Put<uint32_t>(b, 24, lanes.size());
  Put<uint32_t>(b, 28, lanes_dropped);
  Put<uint32_t>(b, 48, 64);
  return b;
}

// A lane at 2 cycles per ns: clk_start 10000, the lane lasting `cycles`.
inline LaneSpec Lane2(std::vector<Rec> recs, uint64_t cycles = 100000, uint32_t group = 0) {
  LaneSpec l;
  l.group = group;
  l.clk_start = 10000;
  l.clk_end = 10000 + cycles;
  l.gt_start = 5000000;
  l.gt_end = l.gt_start + cycles / 2;
  l.recs = std::move(recs);
  return l;
}

inline const Interval* Find(const Trace& t, uint16_t region, int64_t iteration = -1, uint32_t lane = 0) {
  for (const Interval& iv : t.intervals)
    if (iv.region == region && iv.iteration == iteration && iv.lane == lane) return &iv;
  return nullptr;
}

}  // namespace strata::region_decoder::testing
