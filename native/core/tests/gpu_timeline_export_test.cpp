// The GPU activity timeline exported: `strata export --format perfetto` decoded by the protobuf
// library with Perfetto's field numbers (test/interop/perfetto_trace.proto) and compared with a
// golden file, `--format chrome` read back as JSON; on a small written profile with two devices,
// two streams and a copy, and (round trip) the slices' count and summed time against the
// profile's gpu_time totals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "strata/core/api.h"
#include "strata/core/export.h"
#include "strata/format/writer.h"
#include "export/gpu_timeline.h"
#include "test_util.h"

namespace strata::core {
namespace {

namespace fmt = strata::format;
using nlohmann::json;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/strata_timeline_" + std::to_string(::getpid()) + "_" + name;
}

constexpr uint64_t kGpu0 = 1'000'000;                        // the tracer's clock at the first reading
constexpr uint64_t kUnix0 = 1'700'000'000'000'000'000ull;    // the host's at the same instant

// A training step's launches: a copy and two kernels on stream 7 of device 0, two overlapping
// kernels on stream 9 (a record pair a stream should not have: they go on two tracks), a kernel
// on device 1.
std::string WriteFixture() {
  fmt::ProfileWriter w;
  const uint32_t step = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "train_step", "/app/train.py", 12);
  const uint32_t forward = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "forward", "/app/model.py", 30);
  const uint32_t launch = w.Frame(fmt::FrameKind::kGpuApi, fmt::kNone, 0, "cudaLaunchKernel", "", 0);
  const uint32_t memcpy_api = w.Frame(fmt::FrameKind::kGpuApi, fmt::kNone, 0, "cudaMemcpyAsync", "", 0);
  const uint32_t gemm = w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "gemm(float*, float*)", "", 0);
  const uint32_t relu = w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "relu(float*)", "", 0);
  const uint32_t htod = w.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "memcpy HtoD", "", 0);
  const uint32_t n_step = w.Child(0, step);
  const uint32_t n_api = w.Child(w.Child(n_step, forward), launch);
  const uint32_t n_gemm = w.Child(n_api, gemm), n_relu = w.Child(n_api, relu);
  const uint32_t n_copy = w.Child(w.Child(n_step, memcpy_api), htod);
  const uint32_t gpu_time = w.Metric("gpu_time", "ns");
  const uint32_t gemm_name = w.String("_Z4gemmPfS_"), relu_name = w.String("_Z4reluPf");

  struct Rec { uint32_t kind, device, stream, node, name; uint64_t start, end; };
  const std::vector<Rec> recs = {
      {2, 0, 7, n_copy, 0, 100'000, 104'000},
      {1, 0, 7, n_gemm, gemm_name, 105'000, 125'000},
      {1, 0, 7, n_relu, relu_name, 126'000, 130'000},
      {1, 0, 9, n_relu, relu_name, 110'000, 112'000},
      {1, 0, 9, n_relu, relu_name, 111'000, 113'000},
      {1, 1, 7, n_gemm, gemm_name, 200'000, 240'000},
  };
  uint32_t corr = 0;
  for (const Rec& r : recs) {
    fmt::GpuActivityRecord a{};
    a.start_ns = kGpu0 + r.start;
    a.end_ns = kGpu0 + r.end;
    a.kind = r.kind;
    a.device = r.device;
    a.context = r.device + 1;
    a.stream = r.stream;
    a.correlation_id = ++corr;
    a.node = r.node;
    a.name = r.name;
    if (r.kind == 1) {
      a.grid[0] = 64, a.grid[1] = 2, a.grid[2] = 1;
      a.block[0] = 256, a.block[1] = 1, a.block[2] = 1;
    } else {
      a.copy_kind = uint32_t(fmt::GpuCopyKind::kHtoD);
      a.bytes = 1 << 20;
    }
    w.AddGpuActivity(a);
    fmt::MetricStats s;
    s.Add(double(r.end - r.start));
    w.AddStats(r.node, gpu_time, s);
  }
  w.SetGpuTimeline(0, 200000, fmt::GpuClockReading{kGpu0, kUnix0, 1},
                   fmt::GpuClockReading{kGpu0 + 1'000'000'000, kUnix0 + 1'000'000'000, 1'000'000'001});
  const std::string path = TempPath("fixture.strata");
  std::string error;
  EXPECT_TRUE(w.WriteAtomically(path, &error)) << error;
  return path;
}

json DecodePerfetto(const std::string& trace) {
  const test::RunResult run = test::RunShell("/usr/bin/python3 " STRATA_INTEROP_TESTS "/decode_perfetto.py " + trace);
  EXPECT_EQ(run.status, 0) << run.err;
  return run.status == 0 ? json::parse(run.out) : json();
}

bool HaveProtobuf() {
  return test::RunShell("protoc --version && /usr/bin/python3 -c 'import google.protobuf'").status == 0;
}

}  // namespace

TEST(GpuTimelineExport, PerfettoMatchesItsGoldenFile) {
  if (!HaveProtobuf()) GTEST_SKIP() << "needs protoc and Python's protobuf (Debian: protobuf-compiler python3-protobuf)";
  const std::string fixture = WriteFixture();
  const std::string out = TempPath("timeline.pftrace");
  const test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " export " + fixture + " --format perfetto -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const json decoded = DecodePerfetto(out);
  std::remove(out.c_str());
  std::remove(fixture.c_str());
  const std::string golden_path = STRATA_INTEROP_TESTS "/golden/gpu_timeline.perfetto.json";
  if (getenv("STRATA_UPDATE_GOLDEN")) std::ofstream(golden_path) << decoded.dump(1) << "\n";
  std::ifstream golden(golden_path);
  ASSERT_TRUE(golden.good()) << golden_path;
  EXPECT_EQ(decoded, json::parse(golden)) << decoded.dump(1);
}

// What the golden file holds, said as checks: tracks per device and stream, slices in host time,
// the arguments, and the call path as frames with file and line.
TEST(GpuTimelineExport, PerfettoTracksSlicesAndArgs) {
  if (!HaveProtobuf()) GTEST_SKIP() << "needs protoc and Python's protobuf (Debian: protobuf-compiler python3-protobuf)";
  const std::string fixture = WriteFixture();
  auto profile = Profile::Open(fixture);
  const std::string out = TempPath("timeline2.pftrace");
  ExportProfileToFile(*profile, ExportFormat::kPerfetto, out, fixture);
  const json tracks = DecodePerfetto(out).at("tracks");
  std::remove(out.c_str());

  std::vector<std::string> names;
  for (const json& t : tracks) names.push_back(t.at("name"));
  EXPECT_EQ(names, (std::vector<std::string>{"GPU 0", "stream 7", "stream 9", "stream 9, overlapping 1", "GPU 1", "stream 7"}));
  EXPECT_EQ(tracks[1].at("parent"), tracks[0].at("uuid"));
  EXPECT_EQ(tracks[5].at("parent"), tracks[4].at("uuid"));

  const json& stream7 = tracks[1].at("slices");
  ASSERT_EQ(stream7.size(), 3u);
  EXPECT_EQ(stream7[0].at("name"), "memcpy HtoD");
  EXPECT_EQ(stream7[0].at("begin"), kUnix0 + 100'000);  // the tracer's clock mapped to the host's
  EXPECT_EQ(stream7[0].at("end"), kUnix0 + 104'000);
  EXPECT_EQ(stream7[0].at("args").at("bytes"), 1 << 20);
  const json& gemm = stream7[1];
  EXPECT_EQ(gemm.at("name"), "gemm(float*, float*)");
  EXPECT_EQ(gemm.at("depth"), 0);
  const json& args = gemm.at("args");
  EXPECT_EQ(args.at("kind"), "kernel");
  EXPECT_EQ(args.at("correlation_id"), 2);
  EXPECT_EQ(args.at("stream"), 7);
  EXPECT_EQ(args.at("grid"), json::array({64, 2, 1}));
  EXPECT_EQ(args.at("block"), json::array({256, 1, 1}));
  EXPECT_EQ(args.at("mangled"), "_Z4gemmPfS_");
  const json want_path = json::array({
      {{"function", "train_step"}, {"kind", "python"}, {"file", "/app/train.py"}, {"line", 12}},
      {{"function", "forward"}, {"kind", "python"}, {"file", "/app/model.py"}, {"line", 30}},
      {{"function", "cudaLaunchKernel"}, {"kind", "gpu_api"}},
  });
  EXPECT_EQ(args.at("call_path"), want_path);
  EXPECT_EQ(stream7[0].at("args").at("call_path").back().at("function"), "cudaMemcpyAsync");
  EXPECT_EQ(tracks[2].at("slices").size(), 1u);
  EXPECT_EQ(tracks[3].at("slices").size(), 1u);
  std::remove(fixture.c_str());
}

// Round trip: the slices are the profile's GPU work, count and summed time (the timeline dropped
// nothing, so they equal the tree's gpu_time over the window).
TEST(GpuTimelineExport, SlicesAddUpToTheTreesGpuTime) {
  if (!HaveProtobuf()) GTEST_SKIP() << "needs protoc and Python's protobuf (Debian: protobuf-compiler python3-protobuf)";
  const std::string fixture = WriteFixture();
  auto profile = Profile::Open(fixture);
  const std::string out = TempPath("timeline3.pftrace");
  ExportProfileToFile(*profile, ExportFormat::kPerfetto, out, fixture);
  const json tracks = DecodePerfetto(out).at("tracks");
  std::remove(out.c_str());
  std::remove(fixture.c_str());
  uint64_t count = 0, ns = 0;
  for (const json& t : tracks)
    for (const json& s : t.at("slices")) {
      ++count;
      ns += s.at("end").get<uint64_t>() - s.at("begin").get<uint64_t>();
    }
  const size_t gpu_time = *FindMetric(*profile, "gpu_time");
  EXPECT_EQ(count, profile->total_count(gpu_time));
  EXPECT_EQ(double(ns), profile->total(gpu_time));
}

TEST(GpuTimelineExport, ChromeEventsPerDeviceAndStream) {
  const std::string fixture = WriteFixture();
  const std::string out = TempPath("timeline.json");
  const test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " export " + fixture + " --format chrome -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const json trace = json::parse(std::ifstream(out));
  std::remove(out.c_str());
  std::remove(fixture.c_str());
  size_t complete = 0, threads = 0, processes = 0;
  double us = 0;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "M") {
      (e.at("name") == "thread_name" ? threads : processes) += 1;
      continue;
    }
    ASSERT_EQ(e.at("ph"), "X");
    ++complete;
    us += e.at("dur").get<double>();
    if (e.at("args").at("correlation_id") == 2) {
      EXPECT_EQ(e.at("name"), "gemm(float*, float*)");
      EXPECT_EQ(e.at("pid"), 0);
      EXPECT_EQ(e.at("tid"), 7);
      EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), double(kUnix0 + 105'000) / 1000.0);
      EXPECT_EQ(e.at("args").at("call_path").size(), 3u);
      EXPECT_EQ(e.at("args").at("call_path")[1].at("line"), 30);
    }
  }
  EXPECT_EQ(complete, 6u);
  EXPECT_EQ(processes, 2u);
  EXPECT_EQ(threads, 3u);  // (0, 7), (0, 9), (1, 7)
  EXPECT_NEAR(us, (4 + 20 + 4 + 2 + 2 + 40) * 1000.0 / 1000.0, 1e-6);
}

// Real H100 recordings (test/fixtures/README.md, `h100/timeline/`): ResNet-18 training with the
// timeline capped at 500 records, and a jitted flax step (XLA's autotuner: host-to-host copies,
// kernels that overlap on a stream under programmatic dependent launch). Through the CLI: every
// kept record is one slice with its call path, none nested in another (records that overlap on a
// stream go on the stream's extra tracks), and with nothing dropped the slices add up to the
// tree's gpu_time.
struct RealTimeline {
  const char* file;
  uint64_t records, dropped;
};
void PrintTo(const RealTimeline& c, std::ostream* os) { *os << c.file; }
class RealTimelineExport : public ::testing::TestWithParam<RealTimeline> {};

TEST_P(RealTimelineExport, EveryRecordIsOneTopLevelSliceWithItsCallPath) {
  if (!HaveProtobuf()) GTEST_SKIP() << "needs protoc and Python's protobuf (Debian: protobuf-compiler python3-protobuf)";
  const RealTimeline c = GetParam();
  const std::string fixture = std::string(STRATA_FIXTURES "/h100/timeline/") + c.file;
  const detail::GpuTimeline timeline = detail::ReadGpuTimeline(fixture);
  ASSERT_EQ(timeline.records.size(), c.records);
  EXPECT_EQ(timeline.dropped, c.dropped);
  EXPECT_TRUE(timeline.host_clock);

  const std::string out = TempPath(std::string(c.file) + ".pftrace");
  const test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " export " + fixture + " --format perfetto -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const json tracks = DecodePerfetto(out).at("tracks");
  std::remove(out.c_str());

  uint64_t count = 0, ns = 0, with_python = 0, overlap_tracks = 0;
  for (const json& t : tracks) {
    if (t.at("name").get<std::string>().find("overlapping") != std::string::npos) ++overlap_tracks;
    for (const json& s : t.at("slices")) {
      ++count;
      ns += s.at("end").get<uint64_t>() - s.at("begin").get<uint64_t>();
      EXPECT_EQ(s.at("depth"), 0) << s.at("name");
      const json& path = s.at("args").at("call_path");
      ASSERT_FALSE(path.empty()) << s.at("name");
      bool python = false;
      for (const json& f : path) python = python || f.at("kind") == "python";
      with_python += python;
    }
  }
  EXPECT_EQ(count, c.records);
  EXPECT_GT(overlap_tracks, 0u);
  // The launches' Python lines: the user's script is on every path.
  EXPECT_EQ(with_python, count);
  if (c.dropped == 0) {
    auto profile = Profile::Open(fixture);
    const size_t gpu_time = *FindMetric(*profile, "gpu_time");
    EXPECT_EQ(count, profile->total_count(gpu_time));
    // Mapped to host time, each end rounds to a nanosecond and the two clocks' rates differ by
    // parts in 1e8 (the header's readings).
    EXPECT_NEAR(double(ns), profile->total(gpu_time), double(count) + 1e-6 * profile->total(gpu_time));
  }
}

INSTANTIATE_TEST_SUITE_P(H100, RealTimelineExport,
                         ::testing::Values(RealTimeline{"resnet18_cap.strata", 500, 1921},
                                           RealTimeline{"flax.strata", 4837, 0}),
                         [](const ::testing::TestParamInfo<RealTimeline>& i) {
                           return std::string(i.param.file).substr(0, std::string(i.param.file).find('.'));
                         });

// A profile written before the timeline (a real H100 profile): both formats refuse with one line
// and leave the output as it was.
TEST(GpuTimelineExport, ProfilesWithoutATimelineAreRefused) {
  const std::string old = STRATA_FIXTURES "/h100/gpu_torch_train.strata";
  const std::string out = TempPath("kept.json");
  for (const char* format : {"chrome", "perfetto"}) {
    { std::ofstream(out) << "before"; }
    const test::RunResult r = test::RunShell(std::string(STRATA_CLI) + " export " + old + " --format " + format + " -o " + out);
    EXPECT_EQ(r.status, 1) << format;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("no GPU activity timeline"), std::string::npos) << r.err;
    std::stringstream kept;
    kept << std::ifstream(out).rdbuf();
    EXPECT_EQ(kept.str(), "before");
  }
  std::remove(out.c_str());
}

}  // namespace strata::core
