// DWARF symbolization of native frames (PIE executable, shared library) and the fallbacks
// for stripped or missing modules.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "strata/core/api.h"
#include "test_util.h"

namespace fmt = strata::format;
using strata::core::FrameInfo;
using strata::core::Profile;
using strata::core::ViewKind;

namespace {

// ELF virtual address of `symbol` (demangled name) from nm.
uint64_t SymbolAddress(const std::string& binary, const std::string& symbol) {
  std::string cmd = "nm -C --defined-only " + strata::test::Quote(binary);
  FILE* f = ::popen(cmd.c_str(), "r");
  if (!f) return 0;
  char line[1024];
  uint64_t addr = 0;
  while (std::fgets(line, sizeof line, f)) {
    std::string s = line;
    if (s.find(" " + symbol) != std::string::npos) addr = std::strtoull(line, nullptr, 16);
  }
  ::pclose(f);
  return addr;
}

uint32_t MarkerLine(const std::string& source, const std::string& marker) {
  std::ifstream in(source);
  std::string text;
  for (uint32_t n = 1; std::getline(in, text); ++n)
    if (text.find(marker) != std::string::npos) return n;
  return 0;
}

// One native frame per (module, address, stored name) directly under the root; returns the
// resolved frames in input order (from the view's frame table: the top-down view itself merges
// frames of one call site).
std::vector<FrameInfo> Resolve(const std::vector<std::tuple<std::string, uint64_t, std::string>>& frames,
                               const std::string& build_id = "") {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < frames.size(); ++i) {
    auto& [module, address, name] = frames[i];
    uint32_t mod = w.Module(module, build_id, 0x555555554000ull);
    ids.push_back(w.Frame(fmt::FrameKind::kNative, mod, address, name, "", 0));
    uint32_t node = w.Child(0, ids.back());
    fmt::MetricStats s;
    s.Add(double(frames.size() - i));
    w.AddStats(node, m, s);
  }
  auto p = Profile::FromBytes(w.Serialize());
  auto v = p->BuildView(ViewKind::kTopDown);
  std::vector<FrameInfo> out;
  for (uint32_t id : ids) out.push_back((*v.frame_table)[id]);
  return out;
}

std::string Base(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

TEST(Symbolize, PieExecutable) {
  uint64_t addr = SymbolAddress(STRATA_SYM_EXE, "ns::exe_leaf(int)");
  ASSERT_NE(addr, 0u);
  auto f = Resolve({{STRATA_SYM_EXE, addr, ""}, {STRATA_SYM_EXE, addr + 4, "ignored"}});
  EXPECT_EQ(f[0].name, "ns::exe_leaf(int)");
  EXPECT_EQ(Base(f[0].file), "sym_target.cpp");
  EXPECT_EQ(f[0].line, MarkerLine(STRATA_SYM_EXE_SOURCE, "EXE_LEAF_LINE"));
  EXPECT_EQ(f[0].module, STRATA_SYM_EXE);
  EXPECT_EQ(f[0].kind, "native");
  EXPECT_EQ(f[1].name, "ns::exe_leaf(int)");  // DWARF wins over the stored name
  EXPECT_GE(f[1].line, f[0].line);
}

TEST(Symbolize, SharedLibrary) {
  uint64_t addr = SymbolAddress(STRATA_SYM_LIB, "ns::lib_func(int)");
  ASSERT_NE(addr, 0u);
  auto f = Resolve({{STRATA_SYM_LIB, addr, ""}});
  EXPECT_EQ(f[0].name, "ns::lib_func(int)");
  EXPECT_EQ(Base(f[0].file), "sym_lib.cpp");
  EXPECT_EQ(f[0].line, MarkerLine(STRATA_SYM_LIB_SOURCE, "LIB_FUNC_LINE"));
}

TEST(Symbolize, StrippedFallbacks) {
  uint64_t exe = SymbolAddress(STRATA_SYM_EXE, "ns::exe_leaf(int)");
  uint64_t lib = SymbolAddress(STRATA_SYM_LIB, "ns::lib_func(int)");
  ASSERT_NE(exe, 0u);
  ASSERT_NE(lib, 0u);
  char hex[32];
  std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(exe));
  auto f = Resolve({
      {STRATA_SYM_EXE_NODEBUG, exe, ""},               // symbol table only: name, no line
      {STRATA_SYM_EXE_STRIPPED, exe, ""},              // nothing: module+offset
      {STRATA_SYM_EXE_STRIPPED, exe + 1, "_ZN2ns8exe_leafEi"},  // the stored dynamic symbol
      {STRATA_SYM_LIB_STRIPPED, lib, "_ZN2ns8lib_funcEi"},
      {"/nonexistent/libgone.so", 0x1234, ""},         // missing module
      {"/dev/zero", 0x10, ""},                         // not a regular file: never opened
  });
  EXPECT_EQ(f[0].name, "ns::exe_leaf(int)");
  EXPECT_EQ(f[0].file, "");
  EXPECT_EQ(f[0].line, 0u);
  EXPECT_EQ(f[1].name, Base(STRATA_SYM_EXE_STRIPPED) + hex);
  EXPECT_EQ(f[1].file, "");
  EXPECT_EQ(f[2].name, "ns::exe_leaf(int)");
  EXPECT_EQ(f[3].name, "ns::lib_func(int)");
  EXPECT_EQ(f[3].line, 0u);
  EXPECT_EQ(f[4].name, "libgone.so+0x1234");
  EXPECT_EQ(f[5].name, "zero+0x10");
}

// A profile from another machine names its modules by path; a different file at that path
// (another libc build) must not lend it wrong names and lines.
TEST(Symbolize, BuildIdMismatchFallsBackToModuleOffset) {
  uint64_t addr = SymbolAddress(STRATA_SYM_LIB, "ns::lib_func(int)");
  ASSERT_NE(addr, 0u);
  auto other = Resolve({{STRATA_SYM_LIB, addr, ""}}, "00112233445566778899aabbccddeeff00112233");
  EXPECT_EQ(other[0].name, Base(STRATA_SYM_LIB) + "+0x" + [&] { char b[32]; snprintf(b, sizeof b, "%llx", (unsigned long long)addr); return std::string(b); }());
  EXPECT_EQ(other[0].file, "");
  // The recorded name (dynamic symbol seen at run time) is still shown when there is one.
  auto named = Resolve({{STRATA_SYM_LIB, addr, "recorded_name"}}, "00112233445566778899aabbccddeeff00112233");
  EXPECT_EQ(named[0].name, "recorded_name");
}

TEST(Symbolize, BuildIdMatchSymbolizes) {
  uint64_t addr = SymbolAddress(STRATA_SYM_LIB, "ns::lib_func(int)");
  ASSERT_NE(addr, 0u);
  // The real build id, as `readelf -n` prints it.
  std::string cmd = "readelf -n " + strata::test::Quote(STRATA_SYM_LIB) + " | sed -n 's/.*Build ID: //p'";
  FILE* f = ::popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char line[256] = {};
  ASSERT_NE(std::fgets(line, sizeof line, f), nullptr);
  ::pclose(f);
  std::string id = line;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  ASSERT_FALSE(id.empty());
  auto same = Resolve({{STRATA_SYM_LIB, addr, ""}}, id);
  EXPECT_EQ(same[0].name, "ns::lib_func(int)");
  EXPECT_EQ(Base(same[0].file), "sym_lib.cpp");
}

// Separate debug files: a library stripped of its DWARF whose debug file sits in a symbol
// folder in the build-id layout (<dir>/.build-id/ab/cdef….debug, as debuginfod caches and
// distributions' -dbg packages keep them) gets its lines from there.
TEST(Symbolize, SeparateDebugFileByBuildId) {
  using strata::test::Quote;
  std::string dir = std::string(::testing::TempDir()) + "/strata_debugfile_" + std::to_string(::getpid());
  std::string debug_dir = dir + "/symbols";
  std::string lib = dir + "/libsym_lib.so";
  std::string id_cmd = "readelf -n " + Quote(STRATA_SYM_LIB) + " | sed -n 's/.*Build ID: //p'";
  FILE* pipe = ::popen(id_cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char idbuf[256] = {};
  ASSERT_NE(std::fgets(idbuf, sizeof idbuf, pipe), nullptr);
  ::pclose(pipe);
  std::string id = idbuf;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  ASSERT_GT(id.size(), 2u);
  std::string store = debug_dir + "/.build-id/" + id.substr(0, 2);
  std::string cmd = "mkdir -p " + Quote(store) + " && objcopy --only-keep-debug " + Quote(STRATA_SYM_LIB) + " " +
                    Quote(store + "/" + id.substr(2) + ".debug") + " && objcopy --strip-debug " +
                    Quote(STRATA_SYM_LIB) + " " + Quote(lib);
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  uint64_t addr = SymbolAddress(STRATA_SYM_LIB, "ns::lib_func(int)");
  ASSERT_NE(addr, 0u);
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t frame = w.Frame(fmt::FrameKind::kNative, w.Module(lib, id, 0), addr, "", "", 0);
  fmt::MetricStats s;
  s.Add(1);
  w.AddStats(w.Child(0, frame), m, s);
  strata::core::OpenOptions o;
  o.symbol_paths = {debug_dir};
  auto p = Profile::FromBytes(w.Serialize(), o);
  auto v = p->BuildView(ViewKind::kTopDown);
  const FrameInfo& f = (*v.frame_table)[frame];
  EXPECT_EQ(f.name, "ns::lib_func(int)");
  EXPECT_EQ(Base(f.file), "sym_lib.cpp");
  EXPECT_GT(f.line, 0u);
  std::system(("rm -rf " + Quote(dir)).c_str());
}

// A profile without operator frames (recorded with --operators frames, or libtorch from C++):
// torch's dispatcher entry points are shown as the operators they start; a redispatch is not.
TEST(Symbolize, DispatcherEntriesNamedAsOperators) {
  auto f = Resolve({
      {"/nonexistent/libtorch_cpu.so", 0x1809050, "_ZN2at4_ops5addmm4callERKNS_6TensorES4_S4_RKN3c106ScalarES8_"},
      {"/nonexistent/libtorch_cpu.so", 0x1ab7080, "_ZN2at4_ops10add_Tensor4callERKNS_6TensorES4_RKN3c106ScalarE"},
      {"/nonexistent/libtorch_cpu.so", 0x17a39c0,
       "_ZN2at4_ops5addmm10redispatchEN3c1014DispatchKeySetERKNS_6TensorES6_S6_RKNS2_6ScalarES9_"},
  });
  EXPECT_EQ(f[0].kind, "operator");
  EXPECT_EQ(f[0].name, "aten::addmm");
  EXPECT_EQ(f[0].origin, strata::core::FrameOrigin::kLibrary);
  EXPECT_EQ(f[1].kind, "operator");
  EXPECT_EQ(f[1].name, "aten::add_Tensor");  // operator and overload joined as torch names the entry
  EXPECT_EQ(f[2].kind, "native");
  EXPECT_EQ(f[2].name.rfind("at::_ops::addmm::redispatch(", 0), 0u) << f[2].name;
}

// With operator frames recorded (RecordFunction), the dispatcher entry under each stays native:
// the operator is not shown twice.
TEST(Symbolize, DispatcherEntriesStayNativeUnderRecordedOperators) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t mod = w.Module("/nonexistent/libtorch_cpu.so", "", 0x7f0000000000ull);
  uint32_t op = w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "aten::addmm", "", 0);
  uint32_t entry = w.Frame(fmt::FrameKind::kNative, mod, 0x1809050,
                           "_ZN2at4_ops5addmm4callERKNS_6TensorES4_S4_RKN3c106ScalarES8_", "", 0);
  uint32_t node = w.Child(w.Child(0, op), entry);
  fmt::MetricStats s;
  s.Add(1.0);
  w.AddStats(node, m, s);
  auto p = Profile::FromBytes(w.Serialize());
  auto v = p->BuildView(ViewKind::kTopDown);
  EXPECT_EQ((*v.frame_table)[op].kind, "operator");
  EXPECT_EQ((*v.frame_table)[entry].kind, "native");
}

// A profile with both: the runtime flagged the entries taken on paths without a recorded operator
// (before the program's first autograd graph, callbacks off). Those name the operator; the same
// address on a path under a recorded operator stays native, and both paths share their Python
// line in the view.
TEST(Symbolize, FlaggedDispatcherEntriesNamedBesideRecordedOperators) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t mod = w.Module("/nonexistent/libtorch_cpu.so", "", 0x7f0000000000ull);
  const char* mangled = "_ZN2at4_ops5addmm4callERKNS_6TensorES4_S4_RKN3c106ScalarES8_";
  uint32_t line = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "forward", "model.py", 20);
  uint32_t op = w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "aten::addmm", "", 0);
  uint32_t entry = w.Frame(fmt::FrameKind::kNative, mod, 0x1809050, mangled, "", 0);
  uint32_t flagged = w.Frame(fmt::FrameKind::kNative, mod, 0x1809050, mangled, "", 0,
                             fmt::kFrameFlagOperatorNotRecorded);
  ASSERT_NE(entry, flagged);
  uint32_t at = w.Child(0, line);
  fmt::MetricStats s;
  s.Add(3.0);
  w.AddStats(w.Child(w.Child(at, entry), op), m, s);  // recorded: the entry above its operator
  fmt::MetricStats t;
  t.Add(1.0);
  w.AddStats(w.Child(at, flagged), m, t);  // before the first autograd graph
  auto p = Profile::FromBytes(w.Serialize());
  auto v = p->BuildView(ViewKind::kTopDown);
  EXPECT_EQ((*v.frame_table)[entry].kind, "native");
  EXPECT_EQ((*v.frame_table)[flagged].kind, "operator");
  EXPECT_EQ((*v.frame_table)[flagged].name, "aten::addmm");
  double under_op = 0;
  size_t lines = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const FrameInfo& f = (*v.frame_table)[v.frame_id[i]];
    if (f.kind == "python") ++lines;
    if (f.kind == "operator" && f.name == "aten::addmm") under_op += v.values[i].inclusive;
  }
  EXPECT_EQ(lines, 1u);
  EXPECT_DOUBLE_EQ(under_op, 4.0);
}

// Another tool's frames (strata import: no module, no address) keep the names it wrote.
TEST(Symbolize, ImportedDispatcherEntriesKeepTheirNames) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t f = w.Frame(fmt::FrameKind::kNative, fmt::kNone, 0, "at::_ops::addmm::call(at::Tensor const&)", "", 0);
  fmt::MetricStats s;
  s.Add(1.0);
  w.AddStats(w.Child(0, f), m, s);
  auto p = Profile::FromBytes(w.Serialize());
  auto v = p->BuildView(ViewKind::kTopDown);
  EXPECT_EQ((*v.frame_table)[f].kind, "native");
  EXPECT_EQ((*v.frame_table)[f].name, "at::_ops::addmm::call(at::Tensor const&)");
}
