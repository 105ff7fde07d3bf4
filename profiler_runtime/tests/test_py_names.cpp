// Names of code objects are never lost: the handler's cache evicts instead of filling up, its
// name ring hands names to the aggregator (and a full ring drops the sample, not the name),
// normal-code walks intern on the spot, and non-ASCII names are encoded to UTF-8.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "python/code_names.h"
#include "python/pending_names.h"
#include "python/py_reader.h"
#include "sampler/sample.h"

namespace py = strata::rt::python;
namespace rt = strata::rt;

namespace {

char g_code_type[64], g_unicode_type[64];
uintptr_t g_tstate = 0;
void* FakeTstate() { return reinterpret_cast<void*>(g_tstate); }

template <typename T> void Put(uintptr_t a, T v) { memcpy(reinterpret_cast<void*>(a), &v, sizeof(T)); }

// Synthetic 3.12 objects (one interpreter frame per code object, no C entry frames).
struct Fake {
  const py::Offsets& o = py::kPy312;
  std::vector<std::unique_ptr<uint64_t[]>> blocks;
  uintptr_t Alloc(size_t bytes) {
    blocks.emplace_back(new uint64_t[bytes / 8 + 2]());
    return reinterpret_cast<uintptr_t>(blocks.back().get());
  }
  uintptr_t Ascii(const std::string& s) {
    uintptr_t u = Alloc(o.ascii_data + s.size() + 8);
    Put(u + o.ob_type, reinterpret_cast<uintptr_t>(g_unicode_type));
    Put(u + o.unicode_length, int64_t(s.size()));
    Put(u + o.unicode_state, uint32_t(py::kStateCompact | py::kStateAscii));
    memcpy(reinterpret_cast<void*>(u + o.ascii_data), s.data(), s.size());
    return u;
  }
  // A compact non-ASCII str of `kind` (1, 2, 4) bytes per code point, no cached UTF-8.
  uintptr_t Wide(const std::u32string& s, int kind) {
    uintptr_t u = Alloc(o.compact_data + s.size() * 4 + 8);
    Put(u + o.ob_type, reinterpret_cast<uintptr_t>(g_unicode_type));
    Put(u + o.unicode_length, int64_t(s.size()));
    Put(u + o.unicode_state, uint32_t(py::kStateCompact | (uint32_t(kind) << py::kStateKindShift)));
    for (size_t i = 0; i < s.size(); ++i) {
      uintptr_t a = u + o.compact_data + i * size_t(kind);
      if (kind == 1) Put(a, uint8_t(s[i]));
      else if (kind == 2) Put(a, uint16_t(s[i]));
      else Put(a, uint32_t(s[i]));
    }
    return u;
  }
  uintptr_t Code(uintptr_t file, uintptr_t name, int firstlineno) {
    uintptr_t c = Alloc(uint32_t(o.code_code_adaptive) + 64);
    Put(c + o.ob_type, reinterpret_cast<uintptr_t>(g_code_type));
    Put(c + o.code_firstlineno, int32_t(firstlineno));
    Put(c + o.code_filename, file);
    Put(c + o.code_name, name);
    uintptr_t b = Alloc(o.bytes_sval + 16);
    Put(b + o.var_size, int64_t(2));
    const uint8_t table[2] = {0x80 | (13 << 3) | 7, 0x04};  // 8 units on firstlineno + 2
    memcpy(reinterpret_cast<void*>(b + o.bytes_sval), table, 2);
    Put(c + o.code_linetable, b);
    return c;
  }
  // A stack of frames running `codes` (codes[0] innermost); makes it the current one.
  void Stack(const std::vector<uintptr_t>& codes) {
    uintptr_t prev = 0;
    for (size_t i = codes.size(); i-- > 0;) {
      uintptr_t f = Alloc(128);
      Put(f + o.frame_code, codes[i]);
      Put(f + o.frame_instr, codes[i] + uint32_t(o.code_code_adaptive));
      Put(f + uint32_t(o.frame_owner), uint8_t(py::kOwnedByThread));
      Put(f + o.frame_previous, prev);
      prev = f;
    }
    uintptr_t cf = Alloc(32), ts = Alloc(256);
    Put(cf + uint32_t(o.cframe_current_frame), prev);
    Put(ts + o.tstate_frame, cf);
    g_tstate = ts;
  }
  py::Runtime Runtime() {
    py::Runtime r;
    r.off = &o;
    r.get_this_thread_state = FakeTstate;
    r.code_type = reinterpret_cast<uintptr_t>(g_code_type);
    r.unicode_type = reinterpret_cast<uintptr_t>(g_unicode_type);
    return r;
  }
};

struct Thread {
  std::unique_ptr<py::CodeCache> cache{new py::CodeCache()};
  std::unique_ptr<py::NameRing> ring{new py::NameRing()};
  py::PendingNames pending;
  // The aggregator's reading of a word: (file, name).
  std::pair<std::string, std::string> Resolve(uint64_t w) {
    uint32_t id = py::kUnknownCodeId;
    if (rt::IsPendingPyWord(w) && !pending.Find(rt::PendingPySeq(w), &id)) {
      pending.Drain(*cache, *ring);
      if (!pending.Find(rt::PendingPySeq(w), &id)) return {"?", "?"};
    } else if (rt::IsGlobalPyWord(w)) {
      id = rt::GlobalPyCode(w);
    }
    std::pair<std::string, std::string> r;
    py::CodeOf(id, &r.first, &r.second);
    return r;
  }
};

}  // namespace

TEST(PyNames, MoreCodeObjectsThanCacheEntriesAllNamed) {
  Fake f;
  py::Runtime r = f.Runtime();
  Thread t;
  uintptr_t file = f.Ascii("many.py");
  const int kCodes = int(py::CodeCache::kEntries) * 3;  // far more than the cache holds
  std::vector<uintptr_t> codes;
  for (int i = 0; i < kCodes; ++i) codes.push_back(f.Code(file, f.Ascii("fn_" + std::to_string(i)), 10 + i));
  int checked = 0;
  for (int round = 0; round < 2; ++round) {  // the second round re-meets evicted entries
    for (int base = 0; base < kCodes; base += py::PyStack::kMaxFrames) {
      std::vector<uintptr_t> stack(codes.begin() + base,
                                   codes.begin() + std::min(kCodes, base + py::PyStack::kMaxFrames));
      f.Stack(stack);
      py::PyStack ps;
      ASSERT_TRUE(py::WalkCurrentThread(&r, t.cache.get(), t.ring.get(), &ps));
      ASSERT_FALSE(ps.names_dropped);
      ASSERT_EQ(ps.nwords, int(stack.size()));
      for (int k = 0; k < ps.nwords; ++k) {
        auto names = t.Resolve(ps.words[k]);
        ASSERT_EQ(names.second, "fn_" + std::to_string(base + k));
        ASSERT_EQ(names.first, "many.py");
        ASSERT_EQ(rt::PyWordLine(ps.words[k]), uint32_t(10 + base + k + 2));
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2 * kCodes);
}

TEST(PyNames, FullRingDropsTheSampleNotTheName) {
  Fake f;
  py::Runtime r = f.Runtime();
  Thread t;
  uintptr_t file = f.Ascii(std::string(900, 'p') + ".py");  // big records fill the ring fast
  int walks = 0;
  bool dropped = false;
  std::vector<uint64_t> kept;
  for (int base = 0; !dropped && walks < 100; ++walks, base += 8) {
    std::vector<uintptr_t> stack;
    for (int i = 0; i < 8; ++i) stack.push_back(f.Code(file, f.Ascii("g" + std::to_string(base + i)), 1));
    f.Stack(stack);
    py::PyStack ps;
    py::WalkCurrentThread(&r, t.cache.get(), t.ring.get(), &ps);
    dropped = ps.names_dropped;
    if (!dropped) kept.insert(kept.end(), ps.words, ps.words + ps.nwords);
  }
  ASSERT_TRUE(dropped) << "the ring never filled";
  // Everything kept before the drop resolves; after a drain walks name frames again.
  for (uint64_t w : kept) EXPECT_EQ(t.Resolve(w).second.substr(0, 1), "g");
  t.pending.Drain(*t.cache, *t.ring);
  py::PyStack ps;
  ASSERT_TRUE(py::WalkCurrentThread(&r, t.cache.get(), t.ring.get(), &ps));
  EXPECT_FALSE(ps.names_dropped);
  for (int k = 0; k < ps.nwords; ++k) EXPECT_NE(t.Resolve(ps.words[k]).second, "?");
}

TEST(PyNames, NormalCodeInternsOnTheSpot) {
  Fake f;
  py::Runtime r = f.Runtime();
  Thread t;
  f.Stack({f.Code(f.Ascii("n.py"), f.Ascii("launch"), 5)});
  py::PyStack ps;
  ASSERT_TRUE(py::WalkCurrentThread(&r, t.cache.get(), nullptr, &ps));
  ASSERT_EQ(ps.nwords, 1);
  EXPECT_TRUE(rt::IsGlobalPyWord(ps.words[0]));
  EXPECT_EQ(t.ring->Peek(), nullptr);
  EXPECT_EQ(t.Resolve(ps.words[0]).second, "launch");
  // The handler then finds it interned too.
  py::PyStack again;
  ASSERT_TRUE(py::WalkCurrentThread(&r, t.cache.get(), t.ring.get(), &again));
  EXPECT_EQ(again.words[0], ps.words[0]);
}

TEST(PyNames, NonAsciiNamesAsUtf8) {
  Fake f;
  py::Runtime r = f.Runtime();
  Thread t;
  uintptr_t latin = f.Wide(U"caf\u00e9", 1), ucs2 = f.Wide(U"\u0444\u0443\u043d\u043a", 2),
            ucs4 = f.Wide(U"run_\U0001F680", 4);
  f.Stack({f.Code(latin, ucs2, 1), f.Code(latin, ucs4, 2)});
  py::PyStack ps;
  ASSERT_TRUE(py::WalkCurrentThread(&r, t.cache.get(), t.ring.get(), &ps));
  ASSERT_EQ(ps.nwords, 2);
  EXPECT_EQ(t.Resolve(ps.words[0]), std::make_pair(std::string("caf\xc3\xa9"),
                                                   std::string("\xd1\x84\xd1\x83\xd0\xbd\xd0\xba")));
  EXPECT_EQ(t.Resolve(ps.words[1]).second, "run_\xf0\x9f\x9a\x80");
}

TEST(PyNames, FreeThreadedHeaderRecognised) {
  uintptr_t type_type = 0x7000;
  uintptr_t normal[4] = {1, type_type, 0, 0};            // ob_refcnt, ob_type
  uintptr_t free_threaded[4] = {0, 0xFFFFFFFF, 0, type_type};  // ob_tid, flags/refs, shared, ob_type
  EXPECT_FALSE(py::LooksFreeThreaded(reinterpret_cast<uintptr_t>(normal), type_type));
  EXPECT_TRUE(py::LooksFreeThreaded(reinterpret_cast<uintptr_t>(free_threaded), type_type));
}
