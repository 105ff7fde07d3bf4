// The GPU activity timeline: records kept in the profile with their node, stream and times, the
// limit (first K kept, the rest counted), the clock readings in the section's header, the
// STRATA_GPU_TIMELINE values; and, where the CUPTI headers are found, CUPTI's kernel / memcpy /
// memset records decoded with the fields the timeline keeps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cct/cct.h"
#include "gpu/activity/gpu_timeline.h"
#include "strata/format/reader.h"

#ifdef STRATA_TEST_CUPTI
#include "gpu/cupti/activity_decode.h"
#endif

namespace fmt = strata::format;
using strata::rt::Cct;
using strata::rt::gpu::CopyKind;
using strata::rt::gpu::GpuActivity;
using strata::rt::gpu::GpuActivityKind;
using strata::rt::gpu::GpuTimeline;

namespace {

GpuActivity KernelAt(uint64_t start, uint64_t end, uint32_t stream, uint32_t corr) {
  GpuActivity a;
  a.kind = GpuActivityKind::kKernel;
  a.correlation_id = corr;
  a.device = 0;
  a.context = 1;
  a.stream = stream;
  a.start_ns = start;
  a.end_ns = end;
  a.duration_ns = end - start;
  a.grid[0] = 64, a.grid[1] = 2, a.grid[2] = 1;
  a.block[0] = 128, a.block[1] = 1, a.block[2] = 1;
  a.name = "_Z4stepPf";
  return a;
}

std::vector<unsigned char> WriteAndRead(Cct& cct) {
  const std::string path = "/tmp/strata_gpu_timeline_" + std::to_string(getpid()) + ".strata";
  std::string error;
  EXPECT_TRUE(cct.Write(path, {}, &error)) << error;
  std::ifstream in(path, std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return bytes;
}

}  // namespace

TEST(GpuTimeline, KeepsTheFirstRecordsAndCountsTheRest) {
  Cct cct;
  GpuTimeline timeline(3);
  uint32_t kernel_node = 0, copy_node = 0;
  cct.Locked([&](Cct&, Cct::Unlocked u) {
    const uint32_t api = u.Frame(fmt::FrameKind::kGpuApi, fmt::kNone, 0, "cudaLaunchKernel", "", 0);
    const uint32_t kernel = u.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "step(float*)", "", 0);
    const uint32_t copy = u.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "memcpy DtoH", "", 0);
    const uint32_t api_node = u.Child(0, api);
    kernel_node = u.Child(api_node, kernel);
    copy_node = u.Child(api_node, copy);
    timeline.NoteClock(u, fmt::GpuClockReading{1000, 5000, 7000});
    timeline.Add(u, KernelAt(2000, 2500, 7, 11), kernel_node);
    GpuActivity c;
    c.kind = GpuActivityKind::kMemcpy;
    c.copy_kind = CopyKind::kDtoH;
    c.correlation_id = 12;
    c.stream = 13;
    c.start_ns = 2600;
    c.end_ns = 2700;
    c.bytes = 4096;
    c.grid[0] = 99;  // a reused record keeps a kernel's launch fields: a copy must not show them
    timeline.Add(u, c, copy_node);
    GpuActivity sync;
    sync.kind = GpuActivityKind::kSync;  // not on the timeline
    timeline.Add(u, sync, 0);
    timeline.Add(u, KernelAt(2800, 3000, 7, 13), kernel_node);
    timeline.Add(u, KernelAt(3100, 3200, 7, 14), kernel_node);  // past the limit
    timeline.Add(u, KernelAt(3300, 3400, 7, 15), kernel_node);
    timeline.NoteClock(u, fmt::GpuClockReading{0, 0, 0});  // none taken: the last one stays
    timeline.NoteClock(u, fmt::GpuClockReading{9000, 13000, 15000});
  });
  EXPECT_EQ(timeline.kept(), 3u);
  EXPECT_EQ(timeline.dropped(), 2u);
  EXPECT_EQ(timeline.StatusPart(), "timeline 3 records, 2 dropped past its limit of 3 (STRATA_GPU_TIMELINE)");

  const std::vector<unsigned char> bytes = WriteAndRead(cct);
  const auto r = fmt::ProfileReader::Parse(bytes.data(), bytes.size());
  ASSERT_NE(r.gpu_timeline(), nullptr);
  EXPECT_EQ(r.gpu_timeline()->dropped, 2u);
  EXPECT_EQ(r.gpu_timeline()->limit, 3u);
  EXPECT_EQ(r.gpu_timeline()->first_clock.gpu_ns, 1000u);
  EXPECT_EQ(r.gpu_timeline()->first_clock.unix_ns, 5000u);
  EXPECT_EQ(r.gpu_timeline()->last_clock.gpu_ns, 9000u);
  EXPECT_EQ(r.gpu_timeline()->last_clock.monotonic_ns, 15000u);
  ASSERT_EQ(r.gpu_activities().size, 3u);
  const fmt::GpuActivityRecord& k = r.gpu_activities()[0];
  EXPECT_EQ(k.kind, uint32_t(fmt::GpuActivityKind::kKernel));
  EXPECT_EQ(k.start_ns, 2000u);
  EXPECT_EQ(k.end_ns, 2500u);
  EXPECT_EQ(k.stream, 7u);
  EXPECT_EQ(k.context, 1u);
  EXPECT_EQ(k.correlation_id, 11u);
  EXPECT_EQ(k.node, kernel_node);
  EXPECT_EQ(r.string(k.name), "_Z4stepPf");
  EXPECT_EQ(k.grid[1], 2u);
  EXPECT_EQ(k.block[0], 128u);
  const fmt::GpuActivityRecord& c = r.gpu_activities()[1];
  EXPECT_EQ(c.kind, uint32_t(fmt::GpuActivityKind::kMemcpy));
  EXPECT_EQ(c.copy_kind, uint32_t(fmt::GpuCopyKind::kDtoH));
  EXPECT_EQ(c.bytes, 4096u);
  EXPECT_EQ(c.node, copy_node);
  EXPECT_EQ(c.grid[0], 0u);
  EXPECT_EQ(c.name, 0u);
  EXPECT_EQ(r.gpu_activities()[2].correlation_id, 13u);
}

TEST(GpuTimeline, OffKeepsNothing) {
  Cct cct;
  GpuTimeline timeline(0);
  cct.Locked([&](Cct&, Cct::Unlocked u) {
    const uint32_t node = u.Child(0, u.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "k", "", 0));
    timeline.Add(u, KernelAt(1, 2, 7, 1), node);
    timeline.NoteClock(u, fmt::GpuClockReading{1, 2, 3});
  });
  EXPECT_EQ(timeline.kept(), 0u);
  EXPECT_EQ(timeline.StatusPart(), "timeline off (STRATA_GPU_TIMELINE=0)");
  const std::vector<unsigned char> bytes = WriteAndRead(cct);
  const auto r = fmt::ProfileReader::Parse(bytes.data(), bytes.size());
  ASSERT_NE(r.gpu_timeline(), nullptr);  // the header says how many were left out
  EXPECT_EQ(r.gpu_timeline()->dropped, 1u);
  EXPECT_TRUE(r.gpu_activities().empty());
}

TEST(GpuTimeline, LimitSetting) {
  uint64_t limit = 0;
  std::string why;
  EXPECT_TRUE(GpuTimeline::ParseLimit("0", &limit, &why));
  EXPECT_EQ(limit, 0u);
  EXPECT_TRUE(GpuTimeline::ParseLimit("1000000", &limit, &why));
  EXPECT_EQ(limit, 1000000u);
  for (const char* bad : {"", "-1", "10k", "+5", "1e6", "99999999999999999999999"}) {
    EXPECT_FALSE(GpuTimeline::ParseLimit(bad, &limit, &why)) << bad;
    EXPECT_FALSE(why.empty());
  }
  EXPECT_EQ(why, "STRATA_GPU_TIMELINE=99999999999999999999999 is not a record count (0 = off)");
}

#ifdef STRATA_TEST_CUPTI
// CUPTI's records as its buffers hold them, decoded: times, device, context, stream and the
// launch configuration per dimension.
TEST(GpuTimeline, DecodesCuptiRecords) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1'000'000;
  k.end = 1'002'500;
  k.deviceId = 1;
  k.contextId = 3;
  k.streamId = 21;
  k.correlationId = 77;
  k.gridX = 40, k.gridY = 2, k.gridZ = 1;
  k.blockX = 256, k.blockY = 1, k.blockZ = 1;
  k.name = "_Z4stepPf";
  GpuActivity ev;
  ASSERT_TRUE(strata::rt::gpu::DecodeActivity(reinterpret_cast<const CUpti_Activity*>(&k), &ev));
  EXPECT_EQ(ev.kind, GpuActivityKind::kKernel);
  EXPECT_EQ(ev.start_ns, 1'000'000u);
  EXPECT_EQ(ev.end_ns, 1'002'500u);
  EXPECT_EQ(ev.duration_ns, 2500u);
  EXPECT_EQ(ev.device, 1u);
  EXPECT_EQ(ev.context, 3u);
  EXPECT_EQ(ev.stream, 21u);
  EXPECT_EQ(ev.grid[0], 40u);
  EXPECT_EQ(ev.grid[1], 2u);
  EXPECT_EQ(ev.block[0], 256u);
  EXPECT_EQ(ev.grid_blocks, 80);

  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.start = 5000;
  m.end = 4000;  // an end before its start (seen when a record is cut): a zero-length record
  m.deviceId = 1;
  m.contextId = 3;
  m.streamId = 22;
  m.bytes = 1 << 20;
  ASSERT_TRUE(strata::rt::gpu::DecodeActivity(reinterpret_cast<const CUpti_Activity*>(&m), &ev));
  EXPECT_EQ(ev.kind, GpuActivityKind::kMemcpy);
  EXPECT_EQ(ev.copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(ev.start_ns, 5000u);
  EXPECT_EQ(ev.end_ns, 5000u);
  EXPECT_EQ(ev.duration_ns, 0u);
  EXPECT_EQ(ev.stream, 22u);

  CUpti_ActivityMemset4 s{};
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.start = 7000;
  s.end = 7300;
  s.deviceId = 0;
  s.contextId = 4;
  s.streamId = 9;
  s.bytes = 64;
  ASSERT_TRUE(strata::rt::gpu::DecodeActivity(reinterpret_cast<const CUpti_Activity*>(&s), &ev));
  EXPECT_EQ(ev.kind, GpuActivityKind::kMemset);
  EXPECT_EQ(ev.device, 0u);
  EXPECT_EQ(ev.context, 4u);
  EXPECT_EQ(ev.stream, 9u);
  EXPECT_EQ(ev.duration_ns, 300u);
}
#endif
