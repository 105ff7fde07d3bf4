// The in-handler walk of a thread's Python frames (both frame layouts) and the naming of code
// objects through the thread's CodeCache / NameRing (see code_cache.h, name_ring.h).
#include <cstring>

#include "python/code_names.h"
#include "python/linetable.h"
#include "python/py_reader.h"
#include "sampler/sample.h"

namespace strata::rt::python {
namespace {

// Cheap validation of a pointer we are about to dereference: not in the zero page, aligned,
// and inside the canonical user half of the address space.
template <typename T>
inline bool Load(uintptr_t addr, T* out) {
  if (addr < 4096 || addr >= (1ull << 47) || (addr & (alignof(T) - 1))) return false;
  *out = *reinterpret_cast<const T*>(addr);
  return true;
}

inline bool IsType(const Runtime* rt, uintptr_t obj, uintptr_t type) {
  uintptr_t t;
  return Load(obj + rt->off->ob_type, &t) && t == type;
}

inline uint32_t Utf8Length(uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }

inline void PutUtf8(uint32_t cp, char* d) {
  if (cp < 0x80) { d[0] = char(cp); return; }
  if (cp < 0x800) { d[0] = char(0xC0 | (cp >> 6)); d[1] = char(0x80 | (cp & 63)); return; }
  if (cp < 0x10000) {
    d[0] = char(0xE0 | (cp >> 12)); d[1] = char(0x80 | ((cp >> 6) & 63)); d[2] = char(0x80 | (cp & 63));
    return;
  }
  d[0] = char(0xF0 | (cp >> 18)); d[1] = char(0x80 | ((cp >> 12) & 63));
  d[2] = char(0x80 | ((cp >> 6) & 63)); d[3] = char(0x80 | (cp & 63));
}

// Copies str object `obj` as UTF-8 into dst (at most `cap` bytes, cut at a character boundary):
// compact ASCII as is, other compact strings from their cached UTF-8 or encoded from their
// 1/2/4-byte code points. Never allocates. Returns the bytes written, or -1 when `obj` is not a
// readable str.
int CopyUtf8(const Runtime* rt, uintptr_t obj, char* dst, uint32_t cap) {
  const Offsets& o = *rt->off;
  if (!IsType(rt, obj, rt->unicode_type)) return -1;
  uint32_t state;
  int64_t length;
  if (!Load(obj + o.unicode_state, &state) || !Load(obj + o.unicode_length, &length)) return -1;
  if (length < 0 || length > (1 << 20) || !(state & kStateCompact)) return -1;
  if (state & kStateAscii) {
    uint32_t n = length < int64_t(cap) ? uint32_t(length) : cap;
    memcpy(dst, reinterpret_cast<const void*>(obj + o.ascii_data), n);
    return int(n);
  }
  uintptr_t utf8 = 0;
  int64_t ulen = 0;
  if (Load(obj + o.compact_utf8, &utf8) && utf8 >= 4096 && Load(obj + o.compact_utf8_length, &ulen) &&
      ulen >= 0 && ulen <= (1 << 22)) {
    uint32_t n = ulen < int64_t(cap) ? uint32_t(ulen) : cap;
    const char* s = reinterpret_cast<const char*>(utf8);
    if (n < uint64_t(ulen)) while (n > 0 && (uint8_t(s[n]) & 0xC0) == 0x80) --n;
    memcpy(dst, s, n);
    return int(n);
  }
  uint32_t kind = (state & kStateKindMask) >> kStateKindShift;
  if (kind != 1 && kind != 2 && kind != 4) return -1;
  uintptr_t data = obj + o.compact_data;
  uint32_t n = 0;
  for (int64_t i = 0; i < length; ++i) {
    uint32_t cp = kind == 1 ? *reinterpret_cast<const uint8_t*>(data + uintptr_t(i))
                : kind == 2 ? *reinterpret_cast<const uint16_t*>(data + uintptr_t(i) * 2)
                            : *reinterpret_cast<const uint32_t*>(data + uintptr_t(i) * 4);
    if (cp > 0x10FFFF) return -1;
    uint32_t l = Utf8Length(cp);
    if (n + l > cap) break;
    PutUtf8(cp, dst + n);
    n += l;
  }
  return int(n);
}

// File and name of a code object as UTF-8 into dst (2 * NameRing::kMaxString bytes).
void CopyNames(const Runtime* rt, const CodeKey& k, char* dst, uint16_t* flen, uint16_t* nlen) {
  int f = CopyUtf8(rt, k.file, dst, NameRing::kMaxString);
  if (f < 0) { memcpy(dst, "<?>", 3); f = 3; }
  int n = CopyUtf8(rt, k.name, dst + f, NameRing::kMaxString);
  if (n < 0) { memcpy(dst + f, "<?>", 3); n = 3; }
  *flen = uint16_t(f);
  *nlen = uint16_t(n);
}

// The frame word for `code` at `line`; 0 (and *dropped) when the handler's ring is full.
uint64_t CodeWord(const Runtime* rt, CodeCache* cache, NameRing* ring, uintptr_t code, uint32_t line,
                  bool* dropped) {
  const Offsets& o = *rt->off;
  CodeKey k{code, 0, 0, 0};
  Load(code + o.code_filename, &k.file);
  Load(code + o.code_name, &k.name);
  Load(code + o.code_firstlineno, &k.firstlineno);
  uint32_t victim = 0;
  CodeEntry* e = cache->Find(k, &victim);
  uint64_t st = e ? e->state.load(std::memory_order_acquire) : 0;
  if (st & kInterned) return GlobalPyWord(uint32_t(st), line);
  if (ring) {
    if (st & kPending) return PendingPyWord(uint32_t(st), line);
    NameRecord* r = ring->Reserve();
    if (!r) { *dropped = true; return 0; }
    CopyNames(rt, k, reinterpret_cast<char*>(r + 1), &r->file_len, &r->name_len);
    r->seq = cache->NextSeq();
    r->entry = victim;
    // The entry waits for the record before the record is visible: the aggregator's CAS then
    // always finds it (or a later occupant, and leaves that alone).
    cache->Install(victim, k, kPending | r->seq);
    uint32_t seq = r->seq;
    ring->Commit(r);
    return PendingPyWord(seq, line);
  }
  // Normal code: intern now; the object is alive (it is on this thread's stack).
  char buf[2 * NameRing::kMaxString];
  uint16_t flen, nlen;
  CopyNames(rt, k, buf, &flen, &nlen);
  uint32_t id = InternCode(std::string_view(buf, flen), std::string_view(buf + flen, nlen));
  if (e) cache->Resolve(cache->Index(e), uint32_t(st), id);
  else cache->Install(victim, k, kInterned | id);
  return GlobalPyWord(id, line);
}

int LineOfInterpreterFrame(const Runtime* rt, uintptr_t code, uintptr_t instr) {
  const Offsets& o = *rt->off;
  uintptr_t table;
  int64_t size;
  int32_t firstlineno;
  if (!Load(code + o.code_linetable, &table) || !Load(table + o.var_size, &size)) return 0;
  if (!Load(code + o.code_firstlineno, &firstlineno)) return 0;
  if (size < 0 || size > (1 << 22)) return 0;
  intptr_t unit = (intptr_t(instr) - intptr_t(code + uint32_t(o.code_code_adaptive))) / 2;
  if (unit > (1 << 24)) return 0;
  int line = LineForInstruction(reinterpret_cast<const uint8_t*>(table + o.bytes_sval), size_t(size),
                                firstlineno, int(unit));
  return line < 0 ? 0 : line;
}

int LineOfFrameObject(const Runtime* rt, uintptr_t frame, uintptr_t code, int32_t lasti) {
  const Offsets& o = *rt->off;
  int32_t lineno = 0;
  if (o.frame_lineno != kAbsent && Load(frame + uint32_t(o.frame_lineno), &lineno) && lineno > 0)
    return lineno;  // 3.10 keeps it while tracing, and then it is the truth
  uintptr_t table;
  int64_t size;
  int32_t firstlineno;
  if (!Load(code + o.code_linetable, &table) || !Load(table + o.var_size, &size)) return 0;
  if (!Load(code + o.code_firstlineno, &firstlineno)) return 0;
  if (size < 0 || size > (1 << 22) || lasti > (1 << 24)) return 0;
  auto* t = reinterpret_cast<const uint8_t*>(table + o.bytes_sval);
  int line = o.lines == LineTable::kLnotab ? LineForAddress39(t, size_t(size), firstlineno, lasti)
                                           : LineForAddress310(t, size_t(size), firstlineno, lasti * 2);
  return line < 0 ? 0 : line;
}

bool InnermostFrame(const Runtime* rt, uintptr_t* frame) {
  uintptr_t ts = reinterpret_cast<uintptr_t>(rt->get_this_thread_state());
  if (!ts) return false;
  const Offsets& o = *rt->off;
  uintptr_t f;
  if (!Load(ts + o.tstate_frame, &f)) return false;
  if (o.cframe_current_frame != kAbsent && !Load(f + uint32_t(o.cframe_current_frame), &f)) return false;
  *frame = f;
  return true;
}

}  // namespace

bool StackKey(const Runtime* rt, uint64_t* key) {
  uintptr_t frame;
  if (!InnermostFrame(rt, &frame)) return false;
  const Offsets& o = *rt->off;
  // Taken at every GPU launch, over every frame (30-60 in a transformer's decoding loop): one
  // hash chain per field lets the three chains run side by side, where one chain over all three
  // fields waits on each multiply in turn.
  uint64_t hf = 0xcbf29ce484222325ull, hc = 0x84222325cbf29ce4ull, hi = 0x9E3779B97F4A7C15ull;
  auto mix = [](uint64_t* h, uint64_t v) { *h = (*h ^ v) * 0x100000001b3ull; *h ^= *h >> 29; };
  for (int guard = 0; frame && guard < 4096; ++guard) {
    uintptr_t code = 0, prev = 0, instr = 0;
    if (!Load(frame + o.frame_code, &code) || !Load(frame + o.frame_previous, &prev)) break;
    if (o.layout == FrameLayout::kFrameObject) {
      int32_t lasti = 0;
      Load(frame + o.frame_instr, &lasti);
      instr = uint32_t(lasti);
    } else {
      Load(frame + o.frame_instr, &instr);
    }
    mix(&hf, frame);
    mix(&hc, code);
    mix(&hi, instr);
    frame = prev;
  }
  uint64_t h = (hf * 0x9E3779B97F4A7C15ull) ^ (hc * 0xC2B2AE3D27D4EB4Full) ^ (hi * 0x165667B19E3779F9ull);
  *key = h ^ (h >> 31);
  return true;
}

bool WalkCurrentThread(const Runtime* rt, CodeCache* cache, NameRing* ring, PyStack* out) {
  out->nwords = 0;
  out->ngroups = 0;
  out->group_start[0] = 0;
  out->names_dropped = false;
  out->truncated = false;
  uintptr_t frame;
  if (!InnermostFrame(rt, &frame)) return false;
  const Offsets& o = *rt->off;
  auto close_group = [out] {
    if (out->ngroups < PyStack::kMaxGroups) out->group_start[++out->ngroups] = uint16_t(out->nwords);
  };
  auto push = [&](uintptr_t code, int line) {
    if (out->names_dropped) return;
    if (out->nwords >= PyStack::kMaxFrames) {
      out->truncated = true;
      return;
    }
    uint64_t w = CodeWord(rt, cache, ring, code, uint32_t(line), &out->names_dropped);
    if (w) out->words[out->nwords++] = w;
  };
  if (o.layout == FrameLayout::kFrameObject) {
    // One PyFrameObject per _PyEval_EvalFrameDefault call: every frame is its own group.
    for (int guard = 0; frame && guard < 4096; ++guard) {
      uintptr_t code = 0, prev = 0;
      int32_t lasti = -1;
      if (!Load(frame + o.frame_code, &code) || !Load(frame + o.frame_previous, &prev)) break;
      if (IsType(rt, code, rt->code_type) && Load(frame + o.frame_instr, &lasti)) {
        push(code, LineOfFrameObject(rt, frame, code, lasti));
        close_group();
      }
      frame = prev;
    }
    out->truncated |= frame != 0;
    return out->nwords > 0;
  }
  for (int guard = 0; frame && guard < 4096; ++guard) {
    uintptr_t code = 0, prev = 0, instr = 0;
    uint8_t owner = 0, is_entry = 0;
    if (!Load(frame + o.frame_code, &code) || !Load(frame + o.frame_previous, &prev) ||
        !Load(frame + uint32_t(o.frame_owner), &owner))
      break;
    if (o.frame_is_entry != kAbsent) Load(frame + uint32_t(o.frame_is_entry), &is_entry);
    if (o.minor >= 12 && owner == kOwnedByCStack) {
      close_group();  // the entry frame of one _PyEval_EvalFrameDefault call
      frame = prev;
      continue;
    }
    if (IsType(rt, code, rt->code_type) && Load(frame + o.frame_instr, &instr)) {
      int32_t firsttraceable = 0;
      Load(code + uint32_t(o.code_firsttraceable), &firsttraceable);
      uintptr_t first = code + uint32_t(o.code_code_adaptive);
      bool incomplete = owner != kOwnedByGenerator && instr < first + uintptr_t(firsttraceable) * 2;
      if (!incomplete) push(code, LineOfInterpreterFrame(rt, code, instr));
    }
    if (is_entry) close_group();
    frame = prev;
  }
  out->truncated |= frame != 0;
  if (out->nwords > out->group_start[out->ngroups]) close_group();
  return out->nwords > 0;
}

}  // namespace strata::rt::python
