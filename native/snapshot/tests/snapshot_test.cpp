// The snapshot file: round trip through Writer and Read, and the one-line errors for files cut
// short, of another version, or inconsistent.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "strata/snapshot/reader.h"
#include "strata/snapshot/writer.h"

namespace strata::snapshot {
namespace {

std::string TempPath(const char* name) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-snapshot-test-" + std::to_string(::getpid()) + "-" + name;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void Spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

Snapshot Sample() {
  Snapshot s;
  s.device = {"NVIDIA H100 80GB HBM3", 9, 0, 13000, 85ull << 30};
  s.kernel = "_Z6axpy_kPfPKff";
  s.launch_index = 3;
  s.command = "./axpy 1024";
  s.pid = 42;
  s.image_candidates = 1;
  s.launch.grid[0] = 8;
  s.launch.block[0] = 128;
  s.launch.shared_bytes = 1024;
  s.function_attributes = {{4, 16}};
  s.params = {{0, 8}, {8, 8}, {16, 4}};
  s.param_buffer = std::string(20, '\0');
  uint64_t a = 0x7f0000200000, b = 0x7f0000400000;
  std::memcpy(&s.param_buffer[0], &a, 8);
  std::memcpy(&s.param_buffer[8], &b, 8);
  s.regions = {{a, 4096, MemoryKind::kDevice, true}, {b, 8192, MemoryKind::kDevice, true}};
  s.pointers = {{-1, 0, a, WordKind::kDevice, 0}, {-1, 8, b, WordKind::kDevice, 1}};
  s.bytes_bound = 1 << 20;
  return s;
}

// Writes `s` with region i's before bytes all `i+1` and after bytes all `i+0x10`.
std::string WriteSample(const Snapshot& s, const char* name, uint64_t in_run_ns = 1234) {
  std::string path = TempPath(name);
  Writer w;
  EXPECT_TRUE(w.Open(path)) << w.error();
  const std::string image = "\x7f" "ELF fake image";
  EXPECT_TRUE(w.WriteHead(s, image.data(), image.size())) << w.error();
  if (!s.preludes.empty() || !s.preludes_why_not.empty()) {
    std::vector<std::string> images;
    for (const Prelude& q : s.preludes)
      if (q.image >= 0) images.resize(std::max<size_t>(images.size(), size_t(q.image) + 1), "\x7f" "ELF a prelude's image");
    EXPECT_TRUE(w.WritePreludes(s, images)) << w.error();
  }
  for (Tag t : {Tag::kBefore, Tag::kAfter})
    for (size_t i = 0; i < s.regions.size(); ++i) {
      std::string bytes(s.regions[i].size, char((t == Tag::kBefore ? 1 : 0x10) + i));
      EXPECT_TRUE(w.BeginRegionData(t, uint32_t(i), bytes.size()));
      EXPECT_TRUE(w.Append(bytes.data(), bytes.size() / 2));
      EXPECT_TRUE(w.Append(bytes.data() + bytes.size() / 2, bytes.size() - bytes.size() / 2));
    }
  EXPECT_TRUE(w.WriteTiming(in_run_ns));
  EXPECT_TRUE(w.Commit()) << w.error();
  return path;
}

std::string ErrorOf(const std::string& path) {
  try {
    Read(path);
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    return m;
  }
  return "";
}

TEST(Snapshot, RoundTrip) {
  const Snapshot s = Sample();
  std::string path = WriteSample(s, "roundtrip");
  Snapshot r = Read(path);
  EXPECT_EQ(r.device.name, s.device.name);
  EXPECT_EQ(r.device.cc_major, 9);
  EXPECT_EQ(r.device.driver_version, 13000);
  EXPECT_EQ(r.kernel, s.kernel);
  EXPECT_EQ(r.launch_index, 3u);
  EXPECT_EQ(r.command, s.command);
  EXPECT_EQ(r.launch.grid[0], 8u);
  EXPECT_EQ(r.launch.block[0], 128u);
  EXPECT_EQ(r.launch.shared_bytes, 1024u);
  ASSERT_EQ(r.params.size(), 3u);
  EXPECT_EQ(r.params[2].offset, 16u);
  EXPECT_EQ(r.param_buffer, s.param_buffer);
  ASSERT_EQ(r.pointers.size(), 2u);
  EXPECT_EQ(r.pointers[1].region, 1);
  ASSERT_EQ(r.regions.size(), 2u);
  EXPECT_EQ(r.regions[1].size, 8192u);
  EXPECT_EQ(r.in_run_ns, 1234u);
  EXPECT_EQ(ReadData(path, r.image), std::string("\x7f" "ELF fake image"));
  EXPECT_EQ(ReadData(path, r.before[1]), std::string(8192, char(2)));
  EXPECT_EQ(ReadData(path, r.after[0]), std::string(4096, char(0x10)));
  ::unlink(path.c_str());
}

// The launches before the snapped one: kept with an image of their own or the snapped kernel's,
// or why there are none; a snapshot without the section (an earlier runtime's) says so too.
TEST(Snapshot, PreludeRoundTrip) {
  Snapshot s = Sample();
  Prelude q;
  q.kernel = "triton_red_fused_0";
  q.launch.grid[0] = 64;
  q.launch.block[0] = 256;
  q.launch.ex = true;
  q.launch_attributes.push_back({4, {1, 2, 3}});
  q.params = {{0, 8}, {8, 4}};
  q.param_buffer = std::string(12, '\0');
  uint64_t b = s.regions[1].base + 64;
  std::memcpy(&q.param_buffer[0], &b, 8);
  q.pointers = {{-1, 0, b, WordKind::kDevice, 1}};
  q.image = 0;
  s.preludes = {q, q};
  s.preludes[1].kernel = "_Z4axpyPf";
  s.preludes[1].image = -1;
  std::string path = WriteSample(s, "prelude");
  Snapshot r = Read(path);
  ASSERT_EQ(r.preludes.size(), 2u);
  EXPECT_EQ(r.preludes[0].kernel, "triton_red_fused_0");
  EXPECT_EQ(r.preludes[1].kernel, "_Z4axpyPf");
  EXPECT_EQ(r.preludes[0].launch.grid[0], 64u);
  EXPECT_TRUE(r.preludes[0].launch.ex);
  ASSERT_EQ(r.preludes[0].launch_attributes.size(), 1u);
  EXPECT_EQ(r.preludes[0].launch_attributes[0].value[2], 3);
  EXPECT_EQ(r.preludes[0].param_buffer, q.param_buffer);
  ASSERT_EQ(r.preludes[0].pointers.size(), 1u);
  EXPECT_EQ(r.preludes[0].pointers[0].region, 1);
  EXPECT_EQ(r.preludes[0].image, 0);
  EXPECT_EQ(r.preludes[1].image, -1);
  ASSERT_EQ(r.prelude_images.size(), 1u);
  EXPECT_EQ(ReadData(path, r.prelude_images[0]), std::string("\x7f" "ELF a prelude's image"));
  EXPECT_EQ(ReadData(path, r.before[1]), std::string(8192, char(2))) << "the sections after them still read";
  ::unlink(path.c_str());

  s.preludes[0].pointers[0].region = 5;
  path = WriteSample(s, "prelude-badregion");
  EXPECT_NE(ErrorOf(path).find("prelude's pointer into a region that does not exist"), std::string::npos) << ErrorOf(path);
  ::unlink(path.c_str());

  Snapshot none = Sample();
  none.preludes_why_not = "the snapped launch was the first on its stream";
  path = WriteSample(none, "prelude-none");
  EXPECT_TRUE(Read(path).preludes.empty());
  EXPECT_EQ(Read(path).preludes_why_not, "the snapped launch was the first on its stream");
  ::unlink(path.c_str());
  path = WriteSample(Sample(), "prelude-older");
  EXPECT_TRUE(Read(path).preludes.empty());
  EXPECT_NE(Read(path).preludes_why_not.find("did not record the launches before it"), std::string::npos);
  ::unlink(path.c_str());
}

TEST(Snapshot, CommitLeavesNoTemporaryAndAbortLeavesNothing) {
  std::string path = TempPath("abort");
  {
    Writer w;
    ASSERT_TRUE(w.Open(path));
    Snapshot s = Sample();
    ASSERT_TRUE(w.WriteHead(s, "x", 1));
  }  // destroyed before Commit
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
}

TEST(Snapshot, CutShortAnywhereIsOneLine) {
  std::string path = WriteSample(Sample(), "cut");
  std::string full = Slurp(path);
  std::string cut = TempPath("cut-short");
  for (size_t n : {size_t(0), size_t(5), size_t(16), size_t(20), size_t(40), full.size() / 2, full.size() - 1, full.size() - 24}) {
    Spit(cut, full.substr(0, n));
    std::string e = ErrorOf(cut);
    EXPECT_FALSE(e.empty()) << "cut at " << n;
    if (n >= 16) EXPECT_NE(e.find("cut short"), std::string::npos) << e;
  }
  ::unlink(cut.c_str());
  ::unlink(path.c_str());
}

TEST(Snapshot, NotASnapshotAndOtherVersion) {
  std::string path = TempPath("magic");
  Spit(path, "#!/bin/sh\necho not a snapshot\n");
  EXPECT_NE(ErrorOf(path).find("not a Strata snapshot"), std::string::npos);
  std::string good = WriteSample(Sample(), "version");
  std::string bytes = Slurp(good);
  bytes[8] = 9;  // version 9
  Spit(path, bytes);
  EXPECT_NE(ErrorOf(path).find("version 9"), std::string::npos);
  EXPECT_NE(ErrorOf(TempPath("missing")).find("cannot open"), std::string::npos);
  ::unlink(path.c_str());
  ::unlink(good.c_str());
}

TEST(Snapshot, InconsistentFilesAreRejected) {
  Snapshot s = Sample();
  s.pointers[1].region = 7;  // a region that does not exist
  std::string path = WriteSample(s, "badregion");
  EXPECT_NE(ErrorOf(path).find("does not exist"), std::string::npos);
  ::unlink(path.c_str());

  s = Sample();
  s.params.push_back({64, 8});  // beyond the 20-byte buffer
  path = WriteSample(s, "badparam");
  EXPECT_NE(ErrorOf(path).find("beyond the buffer"), std::string::npos);
  ::unlink(path.c_str());
}

TEST(Snapshot, RegionWithoutItsAfterState) {
  Snapshot s = Sample();
  std::string path = TempPath("noafter");
  Writer w;
  ASSERT_TRUE(w.Open(path));
  ASSERT_TRUE(w.WriteHead(s, "x", 1));
  for (size_t i = 0; i < s.regions.size(); ++i) {
    std::string bytes(s.regions[i].size, 'b');
    ASSERT_TRUE(w.BeginRegionData(Tag::kBefore, uint32_t(i), bytes.size()));
    ASSERT_TRUE(w.Append(bytes.data(), bytes.size()));
  }
  ASSERT_TRUE(w.Commit());
  EXPECT_NE(ErrorOf(path).find("lacks its after contents"), std::string::npos);
  ::unlink(path.c_str());
}

TEST(Snapshot, UnsavedRegionNeedsNoContents) {
  Snapshot s = Sample();
  s.regions[1].saved = false;
  std::string path = TempPath("unsaved");
  Writer w;
  ASSERT_TRUE(w.Open(path));
  ASSERT_TRUE(w.WriteHead(s, "x", 1));
  std::string bytes(s.regions[0].size, 'b');
  for (Tag t : {Tag::kBefore, Tag::kAfter}) {
    ASSERT_TRUE(w.BeginRegionData(t, 0, bytes.size()));
    ASSERT_TRUE(w.Append(bytes.data(), bytes.size()));
  }
  ASSERT_TRUE(w.Commit());
  Snapshot r = Read(path);
  EXPECT_FALSE(r.regions[1].saved);
  EXPECT_FALSE(r.before[1].present);
  ::unlink(path.c_str());
}

TEST(Snapshot, ShortRegionContentsAreAWriterError) {
  Snapshot s = Sample();
  std::string path = TempPath("short");
  Writer w;
  ASSERT_TRUE(w.Open(path));
  ASSERT_TRUE(w.WriteHead(s, "x", 1));
  ASSERT_TRUE(w.BeginRegionData(Tag::kBefore, 0, 100));
  ASSERT_TRUE(w.Append("abc", 3));
  EXPECT_FALSE(w.WriteTiming(1));
  EXPECT_NE(w.error().find("cut short"), std::string::npos);
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
}

#ifdef STRATA_SNAPSHOT_FIXTURES
// bench/snap/axpy_steps.cu's third launch (65536 elements), snapped on the H100: the file
// validates, and what it holds is that launch: its configuration, its parameters pointing at
// the three allocations, the inputs as the program filled them, and the output updated by
// exactly out = (x * a + w)^2 / 2 + out with a = 1 + 3 * 0.25.
TEST(Snapshot, H100AxpyFixtureIsTheSnappedLaunch) {
  const std::string path = std::string(STRATA_SNAPSHOT_FIXTURES) + "/axpy.snap";
  Snapshot s = Read(path);
  EXPECT_EQ(s.kernel, "_Z9axpy_step6InputsfPf");
  EXPECT_EQ(s.launch_index, 3u);
  EXPECT_EQ(s.device.cc_major, 9);
  EXPECT_EQ(s.device.cc_minor, 0);
  EXPECT_EQ(s.launch.block[0], 256u);
  EXPECT_EQ(s.launch.grid[0] % 8, 0u);  // 8 blocks per SM
  EXPECT_GT(s.in_run_ns, 0u);
  EXPECT_TRUE(s.image.present);
  ASSERT_EQ(s.params.size(), 3u);
  EXPECT_EQ(s.params[0].offset, 0u);   // Inputs {x, w, n}
  EXPECT_EQ(s.params[0].size, 24u);
  EXPECT_EQ(s.params[1].offset, 24u);  // a
  EXPECT_EQ(s.params[2].offset, 32u);  // out
  ASSERT_EQ(s.param_buffer.size(), 40u);
  ASSERT_EQ(s.regions.size(), 3u);
  // x, w and out, each found once in the parameters, each its own allocation.
  ASSERT_EQ(s.pointers.size(), 3u);
  const uint32_t offsets[3] = {0, 8, 32};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(s.pointers[i].in_region, -1);
    EXPECT_EQ(s.pointers[i].offset, offsets[i]);
    EXPECT_EQ(s.pointers[i].kind, WordKind::kDevice);
    EXPECT_EQ(s.pointers[i].encoding, Encoding::kRaw);
    ASSERT_EQ(s.pointers[i].region, i);
    EXPECT_EQ(s.pointers[i].value, s.regions[i].base);
  }
  int32_t n = 0;
  float a = 0;
  std::memcpy(&n, s.param_buffer.data() + 16, 4);
  std::memcpy(&a, s.param_buffer.data() + 24, 4);
  ASSERT_EQ(n, 65536);
  EXPECT_EQ(a, 1.75f);
  std::vector<std::vector<float>> before(3), after(3);
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(s.regions[r].saved);
    ASSERT_GE(s.regions[r].size, uint64_t(n) * 4);
    before[r].resize(s.regions[r].size / 4);
    after[r].resize(s.regions[r].size / 4);
    ReadData(path, s.before[r], before[r].data());
    ReadData(path, s.after[r], after[r].data());
  }
  EXPECT_EQ(before[0], after[0]);  // the inputs are not written
  EXPECT_EQ(before[1], after[1]);
  int off = 0;
  for (int i = 0; i < n; ++i) {
    const float x = float(i % 1000) / 1000.0f;
    if (before[0][i] != x || before[1][i] != x) ++off;
    const float v = x * a + x;
    const float want = v * v * 0.5f + before[2][i];
    if (std::abs(after[2][i] - want) > 1e-5f * std::max(1.0f, std::abs(want))) ++off;
  }
  EXPECT_EQ(off, 0);
  EXPECT_NE(before[2], after[2]);
}
#endif

}  // namespace
}  // namespace strata::snapshot
