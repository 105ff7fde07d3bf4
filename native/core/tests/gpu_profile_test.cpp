// pc frames of a profile resolved through the cubin / SASS listing blobs it carries: views,
// the text and JSON reports (with the stall summary) and the analyzers see CUDA lines.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "strata/core/analyze.h"
#include "strata/core/api.h"
#include "strata/core/report.h"
#include "test_util.h"

namespace fmt = strata::format;
using strata::core::Profile;
using strata::core::View;
using strata::core::ViewKind;
using strata::test::StatsOf;

namespace {

const std::string kDir = STRATA_STALL_FIXTURES;

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

enum class Code { kListing, kCubinOnly, kNoLines, kNone };

// root > cudaLaunchKernel > math_chain / mem_chain > pc frames, with pc_samples and stall_*
// counts (as the runtime writes them), and the module's code as blobs.
std::vector<unsigned char> PcProfile(Code code) {
  fmt::ProfileWriter w;
  w.Meta("command", "./stall_kernels");
  uint32_t gpu_time = w.Metric("gpu_time", "ns");
  uint32_t samples = w.Metric("pc_samples", "count");
  uint32_t lsb = w.Metric("stall_long_scoreboard", "count");
  uint32_t wait = w.Metric("stall_wait", "count");
  uint32_t math = w.Metric("stall_math_pipe_throttle", "count");
  uint32_t sel = w.Metric("stall_selected", "count");
  uint32_t mod = w.Module("cubin:1234abcd", "1234abcd", 0);
  if (code == Code::kListing || code == Code::kCubinOnly)
    w.Blob(mod, fmt::BlobKind::kCubin, Slurp(kDir + "/stall_kernels.cubin"));
  if (code == Code::kNoLines) w.Blob(mod, fmt::BlobKind::kCubin, Slurp(kDir + "/stall_kernels_nolines.cubin"));
  if (code == Code::kListing) w.Blob(mod, fmt::BlobKind::kSassListing, Slurp(kDir + "/stall_kernels.sass"));

  uint32_t api = w.Child(0, w.Frame(fmt::FrameKind::kGpuApi, fmt::kNone, 0, "cudaLaunchKernel", "", 0));
  uint32_t mk = w.Child(api, w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "math_chain(float*, float, int)", "", 0));
  uint32_t mm = w.Child(api, w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "mem_chain(unsigned int const*, unsigned int*, unsigned int, int)", "", 0));
  w.AddStats(mk, gpu_time, StatsOf({4e6}));
  w.AddStats(mm, gpu_time, StatsOf({6e6}));
  auto pc = [&](uint32_t kernel, const char* fn, uint64_t off, std::vector<std::pair<uint32_t, double>> stalls) {
    uint32_t n = w.Child(kernel, w.Frame(fmt::FrameKind::kPc, mod, off, fn, "", 0));
    double total = 0;
    for (auto [m, c] : stalls) {
      fmt::MetricStats s;
      s.count = 1; s.sum = s.min = s.max = c;
      w.AddStats(n, m, s);
      total += c;
    }
    fmt::MetricStats s;
    s.count = 1; s.sum = s.min = s.max = total;
    w.AddStats(n, samples, s);
  };
  pc(mk, "_Z10math_chainPffi", 0x140, {{wait, 60}, {math, 30}, {sel, 10}});  // line 14 (at 26)
  pc(mk, "_Z10math_chainPffi", 0x160, {{wait, 40}, {sel, 20}});              // line 14 (at 27)
  pc(mk, "_Z10math_chainPffi", 0x360, {{sel, 5}});                           // line 25
  pc(mm, "_Z9mem_chainPKjPjji", 0x290, {{lsb, 300}, {sel, 3}});              // line 19
  pc(mm, "_Z9mem_chainPKjPjji", 0x2b0, {{lsb, 200}, {wait, 2}});             // line 19
  pc(mm, "_Z9mem_chainPKjPjji", 0x760, {{sel, 4}});                          // line 20
  return w.Serialize();
}

// The view node of the pc frame at `address` (first match).
const strata::core::FrameInfo* PcFrame(const View& v, uint64_t address) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v.frame(i).kind == "pc" && v.frame(i).address == address) return &v.frame(i);
  return nullptr;
}

TEST(GpuProfile, ListingGivesSassSourceLineAndInlining) {
  auto p = Profile::FromBytes(PcProfile(Code::kListing));
  View v = p->BuildView(ViewKind::kTopDown, *strata::core::FindMetric(*p, "pc_samples"));
  const auto* f = PcFrame(v, 0x140);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "+0x140 FFMA R5, R5, R2, 0.5 (inlined at stall_kernels.cu:26)");
  EXPECT_EQ(f->file, "/work/main/test/stalls/stall_kernels.cu");
  EXPECT_EQ(f->line, 14u);
  EXPECT_EQ(f->module, "cubin:1234abcd");
  EXPECT_EQ(PcFrame(v, 0x160)->name, "+0x160 FFMA R5, R5, R2, 0.5 (inlined at stall_kernels.cu:27)");
  EXPECT_EQ(PcFrame(v, 0x360)->name, "+0x360 @P1 BRA `(.L_x_4)");
  EXPECT_EQ(PcFrame(v, 0x360)->line, 25u);
  EXPECT_EQ(PcFrame(v, 0x290)->name, "+0x290 LDG.E.CONSTANT R7, desc[UR4][R6.64]");
  EXPECT_EQ(PcFrame(v, 0x290)->line, 19u);
  // Flat and bottom-up see the same resolved frames.
  View flat = p->BuildView(ViewKind::kFlat, 0);
  EXPECT_EQ(PcFrame(flat, 0x290)->line, 19u);
}

TEST(GpuProfile, CubinOnlyGivesLinesWithoutSass) {
  auto p = Profile::FromBytes(PcProfile(Code::kCubinOnly));
  View v = p->BuildView(ViewKind::kTopDown, 0);
  EXPECT_EQ(PcFrame(v, 0x140)->name, "pc+0x140");
  EXPECT_EQ(PcFrame(v, 0x140)->line, 14u);
  EXPECT_EQ(PcFrame(v, 0x290)->line, 19u);
  EXPECT_EQ(PcFrame(v, 0x290)->file, "/work/main/test/stalls/stall_kernels.cu");
}

TEST(GpuProfile, NoLineInfoOrNoCode) {
  for (Code c : {Code::kNoLines, Code::kNone}) {
    auto p = Profile::FromBytes(PcProfile(c));
    View v = p->BuildView(ViewKind::kTopDown, 0);
    EXPECT_EQ(PcFrame(v, 0x140)->name, "pc+0x140");
    EXPECT_EQ(PcFrame(v, 0x140)->line, 0u);
    EXPECT_EQ(PcFrame(v, 0x140)->file, "");
  }
}

TEST(GpuProfile, DamagedListingFallsBackToTheCubin) {
  fmt::ProfileWriter w;
  uint32_t m = w.Metric("pc_samples", "count");
  uint32_t mod = w.Module("cubin:1", "1", 0);
  w.Blob(mod, fmt::BlobKind::kCubin, Slurp(kDir + "/stall_kernels.cubin"));
  w.Blob(mod, fmt::BlobKind::kSassListing, "not a listing");
  uint32_t k = w.Child(0, w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "mem_chain", "", 0));
  w.AddStats(w.Child(k, w.Frame(fmt::FrameKind::kPc, mod, 0x290, "_Z9mem_chainPKjPjji", "", 0)), m, StatsOf({1}));
  uint32_t bad = w.Module("cubin:2", "2", 0);
  w.Blob(bad, fmt::BlobKind::kCubin, "garbage");
  w.AddStats(w.Child(k, w.Frame(fmt::FrameKind::kPc, bad, 0x10, "_Z1fv", "", 0)), m, StatsOf({1}));
  auto p = Profile::FromBytes(w.Serialize());
  View v = p->BuildView(ViewKind::kTopDown, 0);
  EXPECT_EQ(PcFrame(v, 0x290)->name, "pc+0x290");
  EXPECT_EQ(PcFrame(v, 0x290)->line, 19u);
  EXPECT_EQ(PcFrame(v, 0x10)->name, "pc+0x10");
}

TEST(GpuProfile, TextReportShowsSassLinesAndStalls) {
  auto p = Profile::FromBytes(PcProfile(Code::kListing));
  strata::core::ReportOptions ro;
  ro.metric = *strata::core::FindMetric(*p, "pc_samples");
  std::string text = strata::core::TextReport(*p, p->BuildView(ViewKind::kTopDown, ro.metric), ro);
  EXPECT_NE(text.find("+0x140 FFMA R5, R5, R2, 0.5 (inlined at stall_kernels.cu:26)  stall_kernels.cu:14"), std::string::npos) << text;
  EXPECT_NE(text.find("+0x290 LDG.E.CONSTANT R7, desc[UR4][R6.64]  stall_kernels.cu:19"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU stalls (PC sampling)"), std::string::npos) << text;
  // mem_chain: 509 samples, 500 long_scoreboard; line 19 holds 505 of them.
  EXPECT_NE(text.find("(509 samples)\n    stalls: long_scoreboard 98.2%, selected 1.4%, wait 0.4%"), std::string::npos) << text;
  EXPECT_NE(text.find("stall_kernels.cu:19           505  long_scoreboard 99.0%, selected 0.6%, wait 0.4%"), std::string::npos) << text;
  // math_chain: line 14 (both inlined calls merged) 160 samples; ties keep name order.
  EXPECT_NE(text.find("stall_kernels.cu:14           160  wait 62.5%, math_pipe_throttle 18.8%, selected 18.8%"), std::string::npos) << text;
  EXPECT_LT(text.find("mem_chain(unsigned int const*, unsigned int*, unsigned int, int)  (509"), text.find("math_chain(float*, float, int)  (165"));
}

TEST(GpuProfile, JsonReportHasCudaLinesAndStallSummary) {
  auto p = Profile::FromBytes(PcProfile(Code::kListing));
  strata::core::ReportOptions ro;
  auto doc = nlohmann::json::parse(strata::core::JsonReport(*p, p->BuildView(ViewKind::kBottomUp, 0), ro));
  bool found = false;
  for (const auto& n : doc["nodes"])
    if (n["kind"] == "pc" && n["address"] == "0x140") {
      found = true;
      EXPECT_EQ(n["line"], 14);
      EXPECT_EQ(n["file"], "/work/main/test/stalls/stall_kernels.cu");
      EXPECT_EQ(n["name"], "+0x140 FFMA R5, R5, R2, 0.5 (inlined at stall_kernels.cu:26)");
    }
  EXPECT_TRUE(found);
  const auto& st = doc["gpu_stalls"];
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0]["kernel"], "mem_chain(unsigned int const*, unsigned int*, unsigned int, int)");
  EXPECT_EQ(st[0]["samples"], 509.0);
  EXPECT_EQ(st[0]["reasons"][0]["reason"], "long_scoreboard");
  EXPECT_EQ(st[0]["reasons"][0]["samples"], 500.0);
  EXPECT_EQ(st[0]["lines"][0]["line"], 19);
  EXPECT_EQ(st[0]["lines"][0]["samples"], 505.0);
  EXPECT_EQ(st[0]["lines"][0]["top_reasons"].size(), 3u);
  EXPECT_EQ(st[0]["lines"][1]["line"], 20);
  EXPECT_EQ(st[1]["lines"][0]["top_reasons"][0]["reason"], "wait");
  EXPECT_NEAR(st[1]["lines"][0]["top_reasons"][0]["share"].get<double>(), 100.0 / 160, 1e-9);
  // Without stall metrics: no key.
  auto plain = nlohmann::json::parse(strata::core::JsonReport(*Profile::FromBytes(strata::test::SmallProfile()),
                                                              Profile::FromBytes(strata::test::SmallProfile())->BuildView(ViewKind::kTopDown, 0), ro));
  EXPECT_FALSE(plain.contains("gpu_stalls"));
}

// The runtime's PC detail limit leaves the lightest instructions' samples on their kernel node
// (fixture made by test/stalls/fold_pc_detail.py): the stall summary's kernel totals are the
// same as with every instruction itemized; its lines are those of the remaining pc frames.
TEST(GpuProfile, StallSummaryCountsSamplesOnKernelNodes) {
  strata::core::ReportOptions ro;
  auto summary = [&](const std::string& file) {
    auto p = Profile::Open(kDir + "/" + file);
    return nlohmann::json::parse(strata::core::JsonReport(*p, p->BuildView(ViewKind::kTopDown, 0), ro))["gpu_stalls"];
  };
  auto all = summary("stalls_continuous.strata"), folded = summary("stalls_continuous_detail40.strata");
  ASSERT_EQ(all.size(), 2u);
  ASSERT_EQ(folded.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(folded[k]["kernel"], all[k]["kernel"]);
    EXPECT_NEAR(folded[k]["samples"].get<double>(), all[k]["samples"].get<double>(), 1e-6 * all[k]["samples"].get<double>());
    ASSERT_EQ(folded[k]["reasons"].size(), all[k]["reasons"].size());
    for (size_t r = 0; r < all[k]["reasons"].size(); ++r) {
      EXPECT_EQ(folded[k]["reasons"][r]["reason"], all[k]["reasons"][r]["reason"]);
      EXPECT_NEAR(folded[k]["reasons"][r]["samples"].get<double>(), all[k]["reasons"][r]["samples"].get<double>(),
                  1e-6 * all[k]["samples"].get<double>());
    }
    EXPECT_EQ(folded[k]["lines"][0]["line"], all[k]["lines"][0]["line"]);
    EXPECT_LE(folded[k]["lines"][0]["samples"].get<double>(), all[k]["lines"][0]["samples"].get<double>());
  }
}

TEST(GpuProfile, StallAnalyzerNamesTheCudaLine) {
  auto p = Profile::FromBytes(PcProfile(Code::kListing));
  strata::core::AnalyzeOptions ao;
  auto findings = strata::core::Analyze(*p, ao).findings;
  int found = 0;
  for (const auto& f : findings) {
    if (f.rule != "stall") continue;
    if (f.message.find("mem_chain") != std::string::npos) {
      ++found;
      EXPECT_EQ(f.location.line, 19u) << f.message;
      EXPECT_NE(f.message.find("stalls mostly on long_scoreboard"), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("at stall_kernels.cu:19 "), std::string::npos) << f.message;
    }
    if (f.message.find("math_chain") != std::string::npos) {
      ++found;
      // The inlined helper's line, with both call sites, not the loop line of the top pc.
      EXPECT_EQ(f.location.line, 14u) << f.message;
      EXPECT_NE(f.message.find("stalls mostly on wait"), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("at stall_kernels.cu:14 (inlined at stall_kernels.cu:26, stall_kernels.cu:27)"),
                std::string::npos) << f.message;
    }
    EXPECT_EQ(f.location.file, "/work/main/test/stalls/stall_kernels.cu");
  }
  EXPECT_EQ(found, 2);
}

// --- Embedding listings: `strata sass` and `strata record` with a fake nvdisasm ---------------

const std::string kStrata = STRATA_CLI;

// A stand-in nvdisasm: checks its arguments and that the cubin it gets is the fixture's, then
// prints the fixture listing (CI has no CUDA toolkit).
std::string FakeNvdisasm(const std::string& dir, bool fail = false) {
  std::string path = dir + "/nvdisasm";
  std::ofstream f(path);
  f << "#!/bin/sh\n"
       "if [ \"$1\" = --version ]; then echo 'nvdisasm: NVIDIA (R) CUDA disassembler'; "
       "echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0; fi\n";
  if (fail) f << "echo 'nvdisasm fatal   : boom' >&2; exit 2\n";
  f << "[ \"$1\" = -c ] && [ \"$2\" = -gi ] && [ $# -eq 3 ] || { echo bad arguments >&2; exit 3; }\n"
       "cmp -s \"$3\" " << strata::test::Quote(kDir + "/stall_kernels.cubin") << " || { echo wrong cubin >&2; exit 4; }\n"
       "cat " << strata::test::Quote(kDir + "/stall_kernels.sass") << "\n";
  f.close();
  ::chmod(path.c_str(), 0755);
  return path;
}

std::unique_ptr<Profile> OpenFile(const std::string& path) { return Profile::Open(path); }

TEST(SassCli, EmbedsTheListing) {
  const std::string dir = strata::test::TempDir();
  const std::string prof = dir + "/p.strata";
  strata::test::WriteFile(prof, PcProfile(Code::kCubinOnly));
  auto r = strata::test::RunShell(kStrata + " sass " + strata::test::Quote(prof) + " --nvdisasm " +
                                  strata::test::Quote(FakeNvdisasm(dir)));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, prof + ": sass embedded: 1 listing (nvdisasm V13.0.88)\n");
  auto p = OpenFile(prof);
  EXPECT_EQ(p->meta("sass").value(), "embedded: 1 listing (nvdisasm V13.0.88)");
  View v = p->BuildView(ViewKind::kTopDown, 0);
  EXPECT_EQ(PcFrame(v, 0x140)->name, "+0x140 FFMA R5, R5, R2, 0.5 (inlined at stall_kernels.cu:26)");
  // Everything else is unchanged; a second run has nothing left to do.
  EXPECT_EQ(p->metrics().size(), 6u);
  EXPECT_EQ(p->meta("command").value(), "./stall_kernels");
  r = strata::test::RunShell(kStrata + " sass " + strata::test::Quote(prof) + " --nvdisasm " +
                             strata::test::Quote(FakeNvdisasm(dir)));
  EXPECT_EQ(r.out, prof + ": sass embedded: 0 listings (nvdisasm V13.0.88)\n");
  // The report of the embedded profile shows SASS (the path CI covers without nvdisasm).
  r = strata::test::RunShell(kStrata + " report " + strata::test::Quote(prof) + " --metric pc_samples");
  EXPECT_NE(r.out.find("+0x290 LDG.E.CONSTANT R7, desc[UR4][R6.64]  stall_kernels.cu:19"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU stalls (PC sampling)"), std::string::npos);
  std::system(("rm -rf " + strata::test::Quote(dir)).c_str());
}

TEST(SassCli, MissingOrFailingNvdisasm) {
  const std::string dir = strata::test::TempDir();
  const std::string prof = dir + "/p.strata";
  strata::test::WriteFile(prof, PcProfile(Code::kCubinOnly));
  auto r = strata::test::RunShell("PATH=/nonexistent CUDA_HOME=/nonexistent STRATA_NVDISASM=/nonexistent/nvdisasm " +
                                  kStrata + " sass " + strata::test::Quote(prof));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, prof + ": sass not embedded: nvdisasm not found\n");
  EXPECT_EQ(OpenFile(prof)->meta("sass").value(), "not embedded: nvdisasm not found");

  std::string failing = FakeNvdisasm(dir, /*fail=*/true);
  r = strata::test::RunShell(kStrata + " sass " + strata::test::Quote(prof) + " --nvdisasm " + strata::test::Quote(failing));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(OpenFile(prof)->meta("sass").value(),
            "not embedded: cubin:1234abcd: nvdisasm exited with code 2: nvdisasm fatal   : boom");
  View v = OpenFile(prof)->BuildView(ViewKind::kTopDown, 0);
  EXPECT_EQ(PcFrame(v, 0x140)->name, "pc+0x140");  // the cubin's lines still work
  EXPECT_EQ(PcFrame(v, 0x140)->line, 14u);

  // No cubins, a bad file: one line, exit 1.
  strata::test::WriteFile(prof, strata::test::SmallProfile());
  r = strata::test::RunShell(kStrata + " sass " + strata::test::Quote(prof));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "strata: " + prof + " carries no GPU code (cubins): nothing to disassemble\n");
  strata::test::WriteFile(prof, {'x', 'y'});
  r = strata::test::RunShell(kStrata + " sass " + strata::test::Quote(prof));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "strata: " + prof + ": not a Strata profile: bad magic\n");
  std::system(("rm -rf " + strata::test::Quote(dir)).c_str());
}

TEST(SassCli, RecordEmbedsAfterTheTargetExits) {
  const std::string dir = strata::test::TempDir();
  const std::string prof = dir + "/rec.strata";
  const std::string env = "LD_PRELOAD= STRATA_RUNTIME_LIB=" STRATA_FAKE_RUNTIME " STRATA_FAKE_CUBIN=" +
                          strata::test::Quote(kDir + "/stall_kernels.cubin");
  auto r = strata::test::RunShell(env + " STRATA_NVDISASM=" + strata::test::Quote(FakeNvdisasm(dir)) + " " + kStrata +
                                  " record -o " + strata::test::Quote(prof) + " -- true");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("strata: sass embedded: 1 listing (nvdisasm V13.0.88)"), std::string::npos) << r.err;
  auto p = OpenFile(prof);
  EXPECT_EQ(p->meta("sass").value(), "embedded: 1 listing (nvdisasm V13.0.88)");
  EXPECT_EQ(p->meta("exit").value(), "exited with code 0");

  r = strata::test::RunShell(env + " PATH=/usr/bin:/bin CUDA_HOME=/nonexistent STRATA_NVDISASM=/nonexistent " + kStrata +
                             " record -o " + strata::test::Quote(prof) + " -- true");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(OpenFile(prof)->meta("sass").value(), "not embedded: nvdisasm not found");
  std::system(("rm -rf " + strata::test::Quote(dir)).c_str());
}

}  // namespace
