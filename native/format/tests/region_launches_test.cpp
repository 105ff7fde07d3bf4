// The region launches section and the loop-iteration frame flag: writer -> reader round trip,
// and every validation error of the reader on a damaged section (one line each).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "strata/format/reader.h"
#include "strata/format/writer.h"
#include "damaged_profile.h"

namespace fmt = strata::format;

namespace {

using fmt::test::ErrorOf;
using fmt::test::Reseal;
using fmt::test::Section;

fmt::RegionLaunch Launch(const std::string& kernel, uint64_t corr, std::string buffer) {
  fmt::RegionLaunch l;
  l.kernel = kernel;
  l.correlation_id = corr;
  l.sm_clock_khz = 1980000;
  l.cycles_per_ns = 1.755;
  l.record_cost_cycles = 14.7;
  // Out of order, a repeated id (the last wins) and an id beyond 12 bits (left out).
  l.names = {{3, "load (cp.async)", "../src/kernels.cuh", 75}, {1, "kernel", "", 0}, {2, "old", "", 0},
             {2, "k-loop", "k.cu", 9}, {4096, "too large", "", 0}};
  l.buffer = std::move(buffer);
  return l;
}

// Two launches of one kernel (one names table, stored once) and one of another; a loop frame
// and its iteration frame.
std::vector<unsigned char> ProfileWithLaunches() {
  fmt::ProfileWriter w;
  w.Metric("region_time", "ns");
  uint32_t loop = w.Frame(fmt::FrameKind::kRegion, fmt::kNone, 2, "k-loop", "k.cu", 9);
  uint32_t iter = w.Frame(fmt::FrameKind::kRegion, fmt::kNone, 2, "k-loop", "k.cu", 9, fmt::kFrameFlagIteration);
  w.Child(w.Child(0, loop), iter);
  w.AddRegionLaunch(Launch("_Z4gemmPf", 7, std::string(100, 'a')));
  w.AddRegionLaunch(Launch("_Z4gemmPf", 9, std::string(64, 'b')));
  fmt::RegionLaunch other;
  other.kernel = "_Z5otherv";
  other.correlation_id = 12;
  other.cycles_per_ns = std::nan("");  // not a rate: written as 0
  other.buffer = "xyz";
  w.AddRegionLaunch(other);
  return w.Serialize();
}

fmt::RegionLaunchesHeader* Head(std::vector<unsigned char>& b) {
  return fmt::test::SectionHeader<fmt::RegionLaunchesHeader>(b, fmt::SectionKind::kRegionLaunches);
}
fmt::RegionLaunchRecord* LaunchAt(std::vector<unsigned char>& b, size_t i) {
  return reinterpret_cast<fmt::RegionLaunchRecord*>(Head(b) + 1) + i;
}
fmt::RegionNameRecord* NameAt(std::vector<unsigned char>& b, size_t i) {
  return reinterpret_cast<fmt::RegionNameRecord*>(LaunchAt(b, Head(b)->launch_count)) + i;
}

template <typename F>
void ExpectError(F mutate, const std::string& needle) {
  auto b = ProfileWithLaunches();
  mutate(b);
  Reseal(b);
  std::string err = ErrorOf(b);
  EXPECT_NE(err.find(needle), std::string::npos) << "error was: '" << err << "', expected '" << needle << "'";
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

}  // namespace

TEST(RegionLaunches, RoundTrip) {
  auto bytes = ProfileWithLaunches();
  auto r = fmt::ProfileReader::Parse(bytes.data(), bytes.size());
  EXPECT_EQ(r.region_launches_version(), fmt::kRegionLaunchesVersion);
  ASSERT_EQ(r.region_launch_count(), 3u);
  fmt::RegionLaunchView a = r.region_launch(0), b = r.region_launch(1), c = r.region_launch(2);
  EXPECT_EQ(a.kernel, "_Z4gemmPf");
  EXPECT_EQ(a.correlation_id, 7u);
  EXPECT_EQ(a.sm_clock_khz, 1980000u);
  EXPECT_DOUBLE_EQ(a.cycles_per_ns, 1.755);
  EXPECT_DOUBLE_EQ(a.record_cost_cycles, 14.7);
  EXPECT_EQ(a.buffer, std::string(100, 'a'));
  EXPECT_EQ(b.buffer, std::string(64, 'b'));
  EXPECT_EQ(b.correlation_id, 9u);
  ASSERT_EQ(a.names.size, 3u);
  EXPECT_EQ(a.names[0].region, 1u);
  EXPECT_EQ(r.string(a.names[0].name), "kernel");
  EXPECT_EQ(r.string(a.names[0].file), "");
  EXPECT_EQ(a.names[0].line, 0u);
  EXPECT_EQ(r.string(a.names[1].name), "k-loop");  // the last entry of id 2
  EXPECT_EQ(r.string(a.names[2].name), "load (cp.async)");
  EXPECT_EQ(r.string(a.names[2].file), "../src/kernels.cuh");
  EXPECT_EQ(a.names[2].line, 75u);
  EXPECT_EQ(a.names.data, b.names.data) << "one names table for the two launches of one kernel";
  EXPECT_EQ(Head(bytes)->name_count, 3u);
  EXPECT_EQ(c.kernel, "_Z5otherv");
  EXPECT_EQ(c.cycles_per_ns, 0.0);
  EXPECT_EQ(c.names.size, 0u);
  EXPECT_EQ(c.buffer, "xyz");
  // The iteration flag is part of a frame's identity.
  ASSERT_EQ(r.frames().size, 3u);
  EXPECT_EQ(r.frames()[1].flags, 0u);
  EXPECT_EQ(r.frames()[2].flags, fmt::kFrameFlagIteration);
  EXPECT_EQ(r.frames()[1].name, r.frames()[2].name);
  EXPECT_STREQ(fmt::SectionKindName(uint32_t(fmt::SectionKind::kRegionLaunches)), "region launches");
}

TEST(RegionLaunches, AbsentSection) {
  fmt::ProfileWriter w;
  auto bytes = w.Serialize();
  auto r = fmt::ProfileReader::Parse(bytes.data(), bytes.size());
  EXPECT_EQ(r.region_launches_version(), 0u);
  EXPECT_EQ(r.region_launch_count(), 0u);
  EXPECT_EQ(Section(bytes, fmt::SectionKind::kRegionLaunches), nullptr);
}

TEST(RegionLaunches, NewerVersionIsSkipped) {
  auto b = ProfileWithLaunches();
  Head(b)->version = fmt::kRegionLaunchesVersion + 1;
  Head(b)->launch_count = 99;  // whatever a later version lays out: not looked at
  Reseal(b);
  auto r = fmt::ProfileReader::Parse(b.data(), b.size());
  EXPECT_EQ(r.region_launches_version(), fmt::kRegionLaunchesVersion + 1);
  EXPECT_EQ(r.region_launch_count(), 0u);
}

TEST(RegionLaunches, Errors) {
  using K = fmt::SectionKind;
  ExpectError([](auto& b) { Section(b, K::kRegionLaunches)->record_size = 64; }, "region launches section has record size 64");
  ExpectError([](auto& b) { Head(b)->version = 0; }, "region launches section has version 0");
  ExpectError([](auto& b) { Section(b, K::kRegionLaunches)->count = 2; },
              "region launches section header says 3 launches, section table says 2");
  ExpectError([](auto& b) { Head(b)->name_count = 1u << 30; }, "is too small for 3 launches and 1073741824 names");
  ExpectError([](auto& b) { Head(b)->launch_count = Section(b, K::kRegionLaunches)->count = 1u << 28; },
              "is too small for 268435456 launches");
  ExpectError([](auto& b) { Section(b, K::kRegionLaunches)->size = 8; }, "region launches section is too small for its header");
  ExpectError([](auto& b) { NameAt(b, 1)->region = 4096; }, "region name 1 has region id 4096, more than 4095");
  ExpectError([](auto& b) { NameAt(b, 2)->file = 1u << 20; }, "region name 2 refers to string 1048576");
  ExpectError([](auto& b) { LaunchAt(b, 2)->kernel = 1u << 20; }, "region launch 2 refers to string 1048576");
  ExpectError([](auto& b) { LaunchAt(b, 1)->first_name = 2; }, "region launch 1 refers to names 2..5, the section has 3");
  ExpectError([](auto& b) { LaunchAt(b, 0)->first_name = 0xFFFFFFFFu; }, "region launch 0 refers to names 4294967295..");
  ExpectError([](auto& b) { NameAt(b, 1)->region = 1; }, "region launch 0: its names are not in ascending region id order");
  ExpectError([](auto& b) { LaunchAt(b, 2)->size = 1u << 20; }, "region launch 2 buffer (offset 168, 1048576 bytes) is outside");
  ExpectError([](auto& b) { LaunchAt(b, 2)->offset = ~uint64_t(0); }, "is outside the region launches section");
  ExpectError([](auto& b) { LaunchAt(b, 1)->offset = 4; LaunchAt(b, 1)->size = 0; }, "region launch 1 buffer is not 8-byte aligned");
  ExpectError([](auto& b) { LaunchAt(b, 0)->hash ^= 1; }, "region launch 0 buffer hash mismatch");
  ExpectError([](auto& b) {
    LaunchAt(b, 1)->offset = 96;
    LaunchAt(b, 1)->hash = fmt::Fnv1a64(reinterpret_cast<unsigned char*>(NameAt(b, 3)) + 96, 64);
  }, "region launch 0 buffer overlaps that of launch 1");
  ExpectError([](auto& b) { LaunchAt(b, 0)->cycles_per_ns = -1; }, "region launch 0 has a non-finite or negative clock rate");
  ExpectError([](auto& b) { LaunchAt(b, 1)->record_cost_cycles = std::nan(""); }, "region launch 1 has a non-finite");
  ExpectError([](auto& b) {
    reinterpret_cast<fmt::FrameRecord*>(b.data() + Section(b, K::kFrames)->offset)[0].flags = fmt::kFrameFlagIteration;
  }, "frame 0 is marked as a loop iteration but is not a region frame");
}

// Every cut and every flipped byte of the section: an error or a valid profile, never a crash
// (the fuzzer goes further; this runs everywhere).
TEST(RegionLaunches, DamageNeverCrashes) {
  const auto good = ProfileWithLaunches();
  auto b = good;
  const fmt::SectionEntry s = *Section(b, fmt::SectionKind::kRegionLaunches);
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    b = good;
    for (int k = 0; k < 3; ++k) b[s.offset + rng() % s.size] = uint8_t(rng());
    Reseal(b);
    try {
      auto r = fmt::ProfileReader::Parse(b.data(), b.size());
      for (size_t i = 0; i < r.region_launch_count(); ++i) {
        fmt::RegionLaunchView v = r.region_launch(i);
        size_t sum = v.kernel.size() + v.buffer.size();
        for (const auto& n : v.names) sum += r.string(n.name).size() + r.string(n.file).size();
        (void)sum;
      }
    } catch (const fmt::ReadError&) {
    }
  }
}
