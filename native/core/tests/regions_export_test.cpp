// A decoded region trace as JSON and as a Chrome/Perfetto trace: names shown without their
// marker location, which the JSON's names table carries as fields; per-group shares in the JSON
// the timeline reads. Names files: a table or a harness sidecar, read once.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "buffer_builder.h"  // native/region_decoder/tests
#include "strata/core/regions.h"

namespace {

using namespace strata::core::regions;
using namespace strata::region_decoder::testing;

TEST(RegionsExport, NamesTableAndExports) {
  RegionNames n = ParseNameTable("1=kernel;2=k-loop;bad;9999=x;3=load (cp.async)");
  auto b = Build({Lane2({{0, 1, 0, 10100}, {1, 1, 0, 10300}})});
  Trace t = Decode(b.data(), b.size());
  auto j = nlohmann::json::parse(ToJson(t, n));
  EXPECT_EQ(j["intervals"][0]["name"], "kernel");
  EXPECT_FALSE(j["intervals"][0].contains("location"));
  EXPECT_EQ(j["regions"].size(), 3u);
  EXPECT_EQ(j["regions"][0], (nlohmann::json{{"id", 1}, {"name", "kernel"}}));
  auto c = nlohmann::json::parse(ToChromeTrace(t, n));
  EXPECT_EQ(c["traceEvents"][1]["ph"], "X");
  EXPECT_EQ(c["traceEvents"][1]["name"], "kernel");
  // Without a name: none in the JSON, "region <id>" in the Chrome trace.
  EXPECT_FALSE(nlohmann::json::parse(ToJson(t))["intervals"][0].contains("name"));
  EXPECT_EQ(nlohmann::json::parse(ToChromeTrace(t))["traceEvents"][1]["name"], "region 1");
}

TEST(RegionsExport, MarkerLocationsAreFieldsOfTheNamesTable) {
  RegionNames n = ParseNameTable("3=load (cp.async)@../src/kernels.cuh:75");
  auto b = Build({Lane2({{0, 3, 0, 10100}, {1, 3, 0, 10300}})});
  Trace t = Decode(b.data(), b.size());
  auto j = nlohmann::json::parse(ToJson(t, n));
  EXPECT_EQ(j["intervals"][0]["name"], "load (cp.async)");
  EXPECT_FALSE(j["intervals"][0].contains("location"));
  EXPECT_EQ(j["regions"][0], (nlohmann::json{{"id", 3}, {"name", "load (cp.async)"}, {"file", "../src/kernels.cuh"}, {"line", 75}}));
  auto c = nlohmann::json::parse(ToChromeTrace(t, n));
  EXPECT_EQ(c["traceEvents"][1]["name"], "load (cp.async)");
  EXPECT_EQ(c["traceEvents"][1]["args"]["location"], "../src/kernels.cuh:75");
}

TEST(RegionsExport, GroupsInTheJson) {
  Trace t;
  t.lanes.resize(2);
  t.lanes[1].meta.group = 1;
  auto iv = [&](uint32_t lane, uint16_t region, uint32_t depth, int32_t parent, double s, double e) {
    Interval v;
    v.lane = lane, v.region = region, v.depth = depth, v.parent = parent, v.start_ns = s, v.end_ns = e;
    t.intervals.push_back(v);
  };
  iv(0, 10, 0, -1, 0, 1000);
  iv(1, 13, 0, -1, 0, 1000);
  iv(1, 15, 1, 1, 100, 900);
  auto j = nlohmann::json::parse(ToJson(t, {{15, RegionName{"mma", "k.cu", 9}}}));
  EXPECT_EQ(j["groups"][1]["regions"][1]["name"], "mma");
  EXPECT_EQ(j["groups"][1]["regions"][0]["name"], "region 13");
  t.lanes[1].meta.group = 0;  // one group: nothing to compare, no "groups"
  EXPECT_FALSE(nlohmann::json::parse(ToJson(t))["groups"].is_array());
}

TEST(RegionsExport, IterationLabel) {
  EXPECT_EQ(RegionFrameLabel("k-loop", true), "k-loop (iteration)");
  EXPECT_EQ(RegionFrameLabel("k-loop", false), "k-loop");
}

}  // namespace
