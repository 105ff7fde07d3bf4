// The in-handler Python stack walk and the native/Python merge, on synthetic interpreter frames
// laid out with the 3.11 and the 3.12 offset tables, names going through the handler's ring.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "python/code_names.h"
#include "python/pending_names.h"
#include "python/py_reader.h"
#include "sampler/merge.h"
#include "sampler/sample.h"

namespace py = strata::rt::python;

namespace {

char g_code_type[64], g_unicode_type[64];
uintptr_t g_tstate = 0;
void* FakeTstate() { return reinterpret_cast<void*>(g_tstate); }

// Owns zeroed, 16-byte aligned blocks of fake memory.
struct Heap {
  std::vector<std::vector<uint64_t>> blocks;
  uintptr_t Alloc(size_t bytes) {
    blocks.emplace_back(bytes / 8 + 2, 0);
    return reinterpret_cast<uintptr_t>(blocks.back().data());
  }
};
template <typename T> void Put(uintptr_t a, T v) { memcpy(reinterpret_cast<void*>(a), &v, sizeof(T)); }

struct Fake {
  const py::Offsets& o;
  Heap heap;
  uintptr_t Str(const char* s) {
    uintptr_t u = heap.Alloc(o.ascii_data + strlen(s) + 8);
    Put(u + o.ob_type, reinterpret_cast<uintptr_t>(g_unicode_type));
    Put(u + o.unicode_length, int64_t(strlen(s)));
    Put(u + o.unicode_state, uint32_t(py::kStateCompact | py::kStateAscii));
    memcpy(reinterpret_cast<void*>(u + o.ascii_data), s, strlen(s));
    return u;
  }
  // A code object whose location table maps units 0..7 to firstlineno + 2.
  uintptr_t Code(const char* file, const char* name, int firstlineno, int firsttraceable = 0) {
    uintptr_t c = heap.Alloc(uint32_t(o.code_code_adaptive) + 64);
    Put(c + o.ob_type, reinterpret_cast<uintptr_t>(g_code_type));
    Put(c + o.code_firstlineno, int32_t(firstlineno));
    Put(c + o.code_filename, Str(file));
    Put(c + o.code_name, Str(name));
    Put(c + uint32_t(o.code_firsttraceable), int32_t(firsttraceable));
    uintptr_t b = heap.Alloc(o.bytes_sval + 16);
    Put(b + o.var_size, int64_t(2));
    const uint8_t table[2] = {0x80 | (13 << 3) | 7, 0x04};  // no-column entry, 8 units, +2
    memcpy(reinterpret_cast<void*>(b + o.bytes_sval), table, 2);
    Put(c + o.code_linetable, b);
    return c;
  }
  uintptr_t Frame(uintptr_t code, int unit, int owner, bool is_entry = false) {
    uintptr_t f = heap.Alloc(128);
    Put(f + o.frame_code, code);
    Put(f + o.frame_instr, code + uint32_t(o.code_code_adaptive) + uintptr_t(2 * unit));
    Put(f + uint32_t(o.frame_owner), uint8_t(owner));
    if (o.frame_is_entry >= 0) Put(f + uint32_t(o.frame_is_entry), uint8_t(is_entry));
    return f;
  }
  void Link(uintptr_t f, uintptr_t prev) { Put(f + o.frame_previous, prev); }
  void SetCurrent(uintptr_t frame) {
    uintptr_t cf = heap.Alloc(32), ts = heap.Alloc(256);
    Put(cf + uint32_t(o.cframe_current_frame), frame);
    Put(ts + o.tstate_frame, cf);
    g_tstate = ts;
  }
  py::Runtime Runtime() {
    py::Runtime rt;
    rt.off = &o;
    rt.get_this_thread_state = FakeTstate;
    rt.code_type = reinterpret_cast<uintptr_t>(g_code_type);
    rt.unicode_type = reinterpret_cast<uintptr_t>(g_unicode_type);
    rt.eval_begin = 0x1000;
    rt.eval_end = 0x2000;
    return rt;
  }
};

py::CodeCache g_cache;
py::NameRing g_ring;
py::PendingNames g_pending;

// What the aggregator does with a word: pending -> drain the ring -> code id -> name.
std::string Name(uint64_t w) {
  uint32_t id = 0;
  if (strata::rt::IsPendingPyWord(w)) {
    g_pending.Drain(g_cache, g_ring);
    if (!g_pending.Find(strata::rt::PendingPySeq(w), &id)) return "?";
  } else {
    id = strata::rt::GlobalPyCode(w);
  }
  std::string file, name;
  return py::CodeOf(id, &file, &name) ? name : "?";
}

void Reset() {
  g_cache.Clear();
  g_ring.Clear();
  g_pending.Clear();
}

}  // namespace

TEST(PyWalk, Groups312ByCStackFrames) {
  Fake f{py::kPy312, {}};
  uintptr_t ca = f.Code("a.py", "inner", 10), cb = f.Code("a.py", "middle", 20), cc = f.Code("b.py", "outer", 30);
  // current: inner -> middle -> [C entry] -> outer -> [C entry]
  uintptr_t A = f.Frame(ca, 3, py::kOwnedByThread), B = f.Frame(cb, 1, py::kOwnedByThread),
            C = f.Frame(0, 0, py::kOwnedByCStack), D = f.Frame(cc, 0, py::kOwnedByThread),
            E = f.Frame(0, 0, py::kOwnedByCStack);
  f.Link(A, B); f.Link(B, C); f.Link(C, D); f.Link(D, E);
  f.SetCurrent(A);
  py::Runtime rt = f.Runtime();
  Reset();
  py::PyStack ps;
  ASSERT_TRUE(py::WalkCurrentThread(&rt, &g_cache, &g_ring, &ps));
  ASSERT_EQ(ps.nwords, 3);
  ASSERT_EQ(ps.ngroups, 2);
  EXPECT_EQ(ps.group_start[1], 2);
  EXPECT_EQ(Name(ps.words[0]), "inner");
  EXPECT_EQ(strata::rt::PyWordLine(ps.words[0]), 12u);
  EXPECT_EQ(Name(ps.words[2]), "outer");
  EXPECT_EQ(strata::rt::PyWordLine(ps.words[2]), 32u);

  // Merge: leaf, eval, native, eval, root  ->  leaf, inner, middle, native, outer, root
  const uint64_t pcs[5] = {0x500, 0x1100, 0x600, 0x1200, 0x700};
  uint64_t out[16];
  int n = strata::rt::MergeStacks(pcs, 5, rt.eval_begin, rt.eval_end, &ps, true, out, 16);
  ASSERT_EQ(n, 6);
  EXPECT_EQ(out[0], 0x500u);
  EXPECT_EQ(out[1], ps.words[0]);
  EXPECT_EQ(out[2], ps.words[1]);
  EXPECT_EQ(out[3], 0x600u);
  EXPECT_EQ(out[4], ps.words[2]);
  EXPECT_EQ(out[5], 0x700u);

  // No eval frame in the native stack: Python frames go to the root end, none dropped.
  const uint64_t plain[2] = {0x500, 0x700};
  n = strata::rt::MergeStacks(plain, 2, rt.eval_begin, rt.eval_end, &ps, true, out, 16);
  ASSERT_EQ(n, 5);
  EXPECT_EQ(out[1], 0x700u);
  EXPECT_EQ(out[2], ps.words[0]);
  EXPECT_EQ(out[4], ps.words[2]);

  // Two groups, one eval frame (the other call went through a frame-evaluation hook the native
  // stack does not show). Complete native stack: both groups at the eval frame, the process
  // entry stays the root. Incomplete (unwinding stopped): the outer group goes to the root end.
  const uint64_t one_eval[3] = {0x500, 0x1100, 0x700};
  n = strata::rt::MergeStacks(one_eval, 3, rt.eval_begin, rt.eval_end, &ps, true, out, 16);
  ASSERT_EQ(n, 5);
  EXPECT_EQ(out[1], ps.words[0]);
  EXPECT_EQ(out[3], ps.words[2]);
  EXPECT_EQ(out[4], 0x700u);
  n = strata::rt::MergeStacks(one_eval, 3, rt.eval_begin, rt.eval_end, &ps, false, out, 16);
  ASSERT_EQ(n, 5);
  EXPECT_EQ(out[1], ps.words[0]);
  EXPECT_EQ(out[3], 0x700u);
  EXPECT_EQ(out[4], ps.words[2]);
}

TEST(PyWalk, Groups311ByEntryFramesAndSkipsIncomplete) {
  Fake f{py::kPy311, {}};
  uintptr_t ca = f.Code("a.py", "inner", 10), cb = f.Code("a.py", "entry", 20),
            cx = f.Code("a.py", "incomplete", 40, /*firsttraceable=*/4), cc = f.Code("b.py", "outer", 30);
  uintptr_t A = f.Frame(ca, 0, py::kOwnedByThread), B = f.Frame(cb, 0, py::kOwnedByThread, true),
            X = f.Frame(cx, 1, py::kOwnedByThread), C = f.Frame(cc, 2, py::kOwnedByThread, true);
  f.Link(A, B); f.Link(B, X); f.Link(X, C);
  f.SetCurrent(A);
  py::Runtime rt = f.Runtime();
  Reset();
  py::PyStack ps;
  ASSERT_TRUE(py::WalkCurrentThread(&rt, &g_cache, &g_ring, &ps));
  ASSERT_EQ(ps.nwords, 3);  // X skipped: its prev_instr is before _co_firsttraceable
  ASSERT_EQ(ps.ngroups, 2);
  EXPECT_EQ(ps.group_start[1], 2);
  EXPECT_EQ(Name(ps.words[1]), "entry");
  EXPECT_EQ(Name(ps.words[2]), "outer");
  // Seen again after the aggregator's drain: the entry now holds the interned id, no new record.
  py::PyStack again;
  ASSERT_TRUE(py::WalkCurrentThread(&rt, &g_cache, &g_ring, &again));
  EXPECT_TRUE(strata::rt::IsGlobalPyWord(again.words[0]));
  EXPECT_EQ(Name(again.words[0]), "inner");
  EXPECT_EQ(strata::rt::PyWordLine(again.words[0]), strata::rt::PyWordLine(ps.words[0]));
  EXPECT_EQ(g_ring.Peek(), nullptr);
}

TEST(PyWalk, NoThreadStateNoFrames) {
  Fake f{py::kPy311, {}};
  py::Runtime rt = f.Runtime();
  g_tstate = 0;
  py::PyStack ps;
  EXPECT_FALSE(py::WalkCurrentThread(&rt, &g_cache, &g_ring, &ps));
  EXPECT_EQ(ps.nwords, 0);
}
