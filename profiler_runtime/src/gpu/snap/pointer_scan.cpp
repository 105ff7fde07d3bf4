#include "gpu/snap/pointer_scan.h"

#include <cstring>

namespace strata::rt::gpu::snap {
namespace {

// Whether the word at `offset` lies in a parameter of 128 bytes or more (a TMA descriptor).
bool InLargeParam(const snapshot::Snapshot& s, uint32_t offset) {
  for (const auto& p : s.params)
    if (p.size >= 128 && offset >= p.offset && offset < p.offset + p.size) return true;
  return false;
}

uint64_t Decode(uint64_t v, snapshot::Encoding e) {
  constexpr uint64_t kLow48 = (1ull << 48) - 1, kLow56 = (1ull << 56) - 1;
  switch (e) {
    case snapshot::Encoding::kRaw: return v;
    case snapshot::Encoding::kLow48: return v & kLow48;
    case snapshot::Encoding::kLow48Shl4: return ((v & kLow48) << 4) & kLow48;
    case snapshot::Encoding::kLow56: return v & kLow56;
  }
  return v;
}

bool WholeEightByteParam(const snapshot::Snapshot& s, uint32_t offset) {
  for (const auto& p : s.params)
    if (p.offset == offset && p.size == 8) return true;
  return false;
}

// A user-space virtual address as the driver hands them out (UVA): above 4 GiB, below 2^48,
// 16-byte aligned. Integers that happen to fit are recorded too; the replay only warns.
bool LooksLikeAddress(uint64_t v) { return v >= (1ull << 32) && v < (1ull << 48) && v % 16 == 0; }

}  // namespace

void ScanWords(const uint8_t* bytes, size_t size, int32_t in_region, const Resolver& resolve, snapshot::Snapshot* s) {
  for (size_t at = 0; at + 8 <= size; at += 8) {
    uint64_t raw;
    std::memcpy(&raw, bytes + at, 8);
    uint64_t v = raw;
    snapshot::Encoding encoding = snapshot::Encoding::kRaw;
    Resolved r;
    if (v >= 0x10000 && v < (1ull << 57)) r = resolve(v);
    if (r.kind == snapshot::WordKind::kUnresolved && in_region < 0 && InLargeParam(*s, uint32_t(at))) {
      for (auto e : {snapshot::Encoding::kLow48, snapshot::Encoding::kLow48Shl4, snapshot::Encoding::kLow56}) {
        uint64_t d = Decode(raw, e);
        if (d < 0x10000 || d == raw) continue;
        Resolved t = resolve(d);
        if (t.kind == snapshot::WordKind::kDevice) {
          r = t, v = d, encoding = e;
          break;
        }
      }
    }
    if (r.kind == snapshot::WordKind::kUnresolved && (v < 0x10000 || v >= (1ull << 57))) continue;
    snapshot::PointerWord w;
    w.in_region = in_region;
    w.offset = uint32_t(at);
    w.value = v;
    w.kind = r.kind;
    w.encoding = encoding;
    if (r.kind == snapshot::WordKind::kDevice) {
      int32_t found = -1;
      for (size_t i = 0; i < s->regions.size(); ++i)
        if (s->regions[i].base == r.base) found = int32_t(i);
      if (found < 0) {
        snapshot::Region g;
        g.base = r.base;
        g.size = r.size;
        g.kind = r.memory;
        s->regions.push_back(g);
        found = int32_t(s->regions.size() - 1);
      }
      w.region = found;
    } else if (r.kind == snapshot::WordKind::kUnresolved) {
      if (in_region >= 0 || !WholeEightByteParam(*s, uint32_t(at)) || !LooksLikeAddress(v)) continue;
    }
    s->pointers.push_back(w);
  }
}

uint64_t BoundRegions(uint64_t max_bytes, snapshot::Snapshot* s) {
  uint64_t kept = 0;
  for (auto& g : s->regions) {
    g.saved = kept + g.size <= max_bytes;
    if (g.saved) kept += g.size;
  }
  s->bytes_bound = max_bytes;
  return kept;
}

}  // namespace strata::rt::gpu::snap
