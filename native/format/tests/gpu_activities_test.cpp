// The GPU activities section (the GPU activity timeline): writer -> reader round trip, absent
// from profiles without it, a newer section version skipped, and the reader's one-line errors
// on a damaged section.
#include <gtest/gtest.h>

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

struct Written {
  std::vector<unsigned char> bytes;
  uint32_t kernel_node = 0, copy_node = 0, name = 0;
};

fmt::GpuActivityRecord Kernel(uint64_t start, uint64_t end, uint32_t node, uint32_t name) {
  fmt::GpuActivityRecord r{};
  r.start_ns = start;
  r.end_ns = end;
  r.kind = uint32_t(fmt::GpuActivityKind::kKernel);
  r.device = 0;
  r.context = 1;
  r.stream = 7;
  r.correlation_id = 42;
  r.node = node;
  r.name = name;
  r.grid[0] = 128, r.grid[1] = 1, r.grid[2] = 1;
  r.block[0] = 256, r.block[1] = 1, r.block[2] = 1;
  return r;
}

Written Write() {
  fmt::ProfileWriter w;
  Written out;
  const uint32_t api = w.Frame(fmt::FrameKind::kGpuApi, fmt::kNone, 0, "cudaLaunchKernel", "", 0);
  const uint32_t kernel = w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "scale(float*)", "", 0);
  const uint32_t copy = w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "memcpy HtoD", "", 0);
  const uint32_t api_node = w.Child(0, api);
  out.kernel_node = w.Child(api_node, kernel);
  out.copy_node = w.Child(api_node, copy);
  out.name = w.String("_Z5scalePf");
  w.AddGpuActivity(Kernel(1000, 1500, out.kernel_node, out.name));
  fmt::GpuActivityRecord c{};
  c.start_ns = 2000;
  c.end_ns = 2600;
  c.kind = uint32_t(fmt::GpuActivityKind::kMemcpy);
  c.stream = 13;
  c.node = out.copy_node;
  c.copy_kind = uint32_t(fmt::GpuCopyKind::kHtoD);
  c.bytes = 4096;
  w.AddGpuActivity(c);
  w.SetGpuTimeline(3, 2, fmt::GpuClockReading{900, 1'700'000'000'000'000'000ull, 5'000},
                   fmt::GpuClockReading{1'000'000'900, 1'700'000'001'000'000'000ull, 1'000'005'000});
  out.bytes = w.Serialize();
  return out;
}

fmt::GpuActivitiesHeader* Head(std::vector<unsigned char>& b) {
  return fmt::test::SectionHeader<fmt::GpuActivitiesHeader>(b, fmt::SectionKind::kGpuActivities);
}
fmt::GpuActivityRecord* RecordAt(std::vector<unsigned char>& b, size_t i) {
  return reinterpret_cast<fmt::GpuActivityRecord*>(Head(b) + 1) + i;
}

template <typename Damage>
std::string Damaged(Damage damage) {
  return fmt::test::ErrorAfter(Write().bytes, damage);
}

}  // namespace

TEST(GpuActivities, RoundTrip) {
  const Written w = Write();
  const auto r = fmt::ProfileReader::Parse(w.bytes.data(), w.bytes.size());
  EXPECT_EQ(r.gpu_activities_version(), fmt::kGpuActivitiesVersion);
  ASSERT_NE(r.gpu_timeline(), nullptr);
  EXPECT_EQ(r.gpu_timeline()->dropped, 3u);
  EXPECT_EQ(r.gpu_timeline()->limit, 2u);
  EXPECT_EQ(r.gpu_timeline()->first_clock.gpu_ns, 900u);
  EXPECT_EQ(r.gpu_timeline()->last_clock.unix_ns, 1'700'000'001'000'000'000ull);
  ASSERT_EQ(r.gpu_activities().size, 2u);
  const fmt::GpuActivityRecord& k = r.gpu_activities()[0];
  EXPECT_EQ(k.kind, uint32_t(fmt::GpuActivityKind::kKernel));
  EXPECT_EQ(r.string(k.name), "_Z5scalePf");
  EXPECT_EQ(k.node, w.kernel_node);
  EXPECT_EQ(k.start_ns, 1000u);
  EXPECT_EQ(k.end_ns, 1500u);
  EXPECT_EQ(k.stream, 7u);
  EXPECT_EQ(k.grid[0], 128u);
  EXPECT_EQ(k.block[0], 256u);
  const fmt::GpuActivityRecord& c = r.gpu_activities()[1];
  EXPECT_EQ(c.kind, uint32_t(fmt::GpuActivityKind::kMemcpy));
  EXPECT_EQ(c.copy_kind, uint32_t(fmt::GpuCopyKind::kHtoD));
  EXPECT_EQ(c.bytes, 4096u);
  EXPECT_EQ(c.node, w.copy_node);
  EXPECT_STREQ(fmt::SectionKindName(uint32_t(fmt::SectionKind::kGpuActivities)), "GPU activities");
}

TEST(GpuActivities, AbsentInOldProfiles) {
  fmt::ProfileWriter w;
  w.Child(0, w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "k", "", 0));
  const auto b = w.Serialize();
  const auto r = fmt::ProfileReader::Parse(b.data(), b.size());
  EXPECT_EQ(r.gpu_activities_version(), 0u);
  EXPECT_EQ(r.gpu_timeline(), nullptr);
  EXPECT_TRUE(r.gpu_activities().empty());
}

TEST(GpuActivities, EmptyTimelineKeepsItsHeader) {
  fmt::ProfileWriter w;
  w.SetGpuTimeline(10, 0, fmt::GpuClockReading{}, fmt::GpuClockReading{});
  const auto b = w.Serialize();
  const auto r = fmt::ProfileReader::Parse(b.data(), b.size());
  ASSERT_NE(r.gpu_timeline(), nullptr);
  EXPECT_EQ(r.gpu_timeline()->dropped, 10u);
  EXPECT_TRUE(r.gpu_activities().empty());
}

TEST(GpuActivities, NewerVersionIsSkipped) {
  std::vector<unsigned char> b = Write().bytes;
  Head(b)->version = fmt::kGpuActivitiesVersion + 1;
  RecordAt(b, 0)->node = 999;  // a newer layout is not checked against this one
  Reseal(b);
  const auto r = fmt::ProfileReader::Parse(b.data(), b.size());
  EXPECT_EQ(r.gpu_activities_version(), fmt::kGpuActivitiesVersion + 1);
  EXPECT_EQ(r.gpu_timeline(), nullptr);
  EXPECT_TRUE(r.gpu_activities().empty());
}

TEST(GpuActivities, DamagedSectionsAreOneLineErrors) {
  EXPECT_EQ(Damaged([](auto& b) { Head(b)->version = 0; }), "corrupt profile: GPU activities section has version 0");
  EXPECT_EQ(Damaged([](auto& b) { Head(b)->record_count = 5; }),
            "corrupt profile: GPU activities section header says 5 records, section table says 2");
  EXPECT_EQ(Damaged([](auto& b) { RecordAt(b, 1)->node = 77; }),
            "corrupt profile: GPU activity 1 refers to node 77, there are 4");
  EXPECT_EQ(Damaged([](auto& b) { RecordAt(b, 0)->name = 1000; }).rfind("corrupt profile: GPU activity 0", 0), 0u);
  EXPECT_EQ(Damaged([](auto& b) { RecordAt(b, 0)->end_ns = 10; }), "corrupt profile: GPU activity 0 ends before it starts");
  EXPECT_EQ(Damaged([](auto& b) {
              auto* s = Section(b, fmt::SectionKind::kGpuActivities);
              s->size -= 8;
            }).rfind("corrupt profile: GPU activities section", 0),
            0u);
}
