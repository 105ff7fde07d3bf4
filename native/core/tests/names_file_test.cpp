// Region names files: a table or a harness sidecar (names and the clock rate), read once into
// typed names; a file that is neither says why in one line. And a viewer's decode request that
// names one: its names and rate are used, a bad one is reported beside the trace.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "strata/core/api.h"
#include "strata/core/names_file.h"
#include "strata/core/region_requests.h"

namespace {

using namespace strata::core::regions;

const std::string kFixtures = STRATA_REGION_FIXTURES;

TEST(RegionsNamesFile, TableOrSidecar) {
  NamesFile table = ParseNamesFile("# gemm.names\n1=kernel\n3=load (cp.async)@../src/kernels.cuh:75\n");
  EXPECT_EQ(table.names.at(3), (RegionName{"load (cp.async)", "../src/kernels.cuh", 75}));
  EXPECT_EQ(table.cycles_per_ns, 0);
  NamesFile side = ParseNamesFile(" {\"names\": \"1=a;2=b@k.cu:3\", \"clock_cycles_per_ns\": 1.979991}");
  EXPECT_EQ(side.names.at(1).name, "a");
  EXPECT_EQ(side.names.at(2), (RegionName{"b", "k.cu", 3}));
  EXPECT_DOUBLE_EQ(side.cycles_per_ns, 1.979991);
  EXPECT_DOUBLE_EQ(ParseNamesFile("{\"names\": \"\", \"cycles_per_ns\": 2}").cycles_per_ns, 2);
  EXPECT_EQ(ParseNamesFile("{\"names\": \"1=a\", \"clock_cycles_per_ns\": -1}").cycles_per_ns, 0);
  EXPECT_TRUE(ParseNamesFile("").names.empty());
}

TEST(RegionsNamesFile, BadFilesSayWhyInOneLine) {
  try {
    ParseNamesFile("{\"case\": 1}");
    FAIL() << "no names string";
  } catch (const strata::core::Error& e) {
    EXPECT_STREQ(e.what(), "a JSON names file needs a \"names\" string (\"1=load;2=mma\")");
  }
  try {
    ParseNamesFile("{oops");
    FAIL() << "not JSON";
  } catch (const strata::core::Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("not valid JSON (parse error", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
  std::string why;
  EXPECT_FALSE(ReadNamesFile("/nonexistent/x.names", &why));
  EXPECT_EQ(why, "cannot read the names file");
}

TEST(RegionsNamesFile, TheSidecarOfAnH100Buffer) {
  std::string why;
  auto side = ReadNamesFile(kFixtures + "/gemm_nested_loop.json", &why);
  ASSERT_TRUE(side) << why;
  EXPECT_EQ(side->names.at(4).name, "compute");
  EXPECT_DOUBLE_EQ(side->cycles_per_ns, 1.979991);
}

TEST(RegionsNamesFile, ADecodeRequestUsesItsNamesAndRate) {
  TraceRequest r;
  r.path = kFixtures + "/gemm_nested_loop.bin";
  r.names = "4=computing";
  r.names_file = kFixtures + "/gemm_nested_loop.json";
  RequestedTrace t = DecodeRequest(r);
  EXPECT_TRUE(t.names_file_error.empty());
  EXPECT_EQ(t.names.at(4).name, "computing");  // the request's own names first
  EXPECT_EQ(t.names.at(3).name, "load (cp.async)");
  EXPECT_DOUBLE_EQ(t.trace.cycles_per_ns, 1.979991);
  // A bad names file: decoded without it, and why.
  const std::string bad = testing::TempDir() + "bad.names.json";
  std::ofstream(bad) << "{\"case\": 1}";
  r.names.clear();
  r.names_file = bad;
  t = DecodeRequest(r);
  EXPECT_EQ(t.names_file_error, "a JSON names file needs a \"names\" string (\"1=load;2=mma\")");
  EXPECT_TRUE(t.names.empty());
  EXPECT_FALSE(t.trace.lanes.empty());
  std::remove(bad.c_str());
}

}  // namespace
