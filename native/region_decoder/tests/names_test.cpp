// The names-table grammar: tables, files, and the marker locations in their entries.
#include <gtest/gtest.h>

#include "strata/region_decoder/names.h"

namespace {

using namespace strata::region_decoder;

TEST(RegionsNames, Table) {
  RegionNames n = ParseNameTable("1=kernel;2=k-loop;bad;9999=x;3=load (cp.async);=x;12345=y;2=loop");
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[1], (RegionName{"kernel", "", 0}));
  EXPECT_EQ(n[2].name, "loop");  // a repeated id: the last entry wins
  EXPECT_EQ(n[3].name, "load (cp.async)");
  EXPECT_EQ(NameOf(n, 3).name, "load (cp.async)");
  EXPECT_EQ(NameOf(n, 7), (RegionName{"region 7", "", 0}));
  EXPECT_TRUE(ParseNameTable("").empty());
}

TEST(RegionsNames, FileTablesAndMarkerLocations) {
  // A names file: one entry per line, comments, spaces, ';' still allowed inside a line.
  RegionNames n = ParseNameTable("# gemm.names\n1 = kernel\r\n3=load (cp.async)@../src/kernels.cuh:75; 4=compute\n#5=x\n\n6=at@x\n");
  ASSERT_EQ(n.size(), 4u);
  EXPECT_EQ(n[1], (RegionName{"kernel", "", 0}));
  EXPECT_EQ(n[3], (RegionName{"load (cp.async)", "../src/kernels.cuh", 75}));
  EXPECT_EQ(n[4].name, "compute");
  EXPECT_EQ(n[6], (RegionName{"at@x", "", 0}));
  EXPECT_EQ(n.count(5), 0u);
  // Not locations: no line, a zero line, nothing between '@' and ':', text after the line.
  for (const char* plain : {"at@x", "a@f.cu:0", "a@:12", "a@f.cu:12x", "mail me@host", "a:12"}) {
    RegionName p = ParseNameEntry(plain);
    EXPECT_EQ(p.name, plain);
    EXPECT_TRUE(p.file.empty()) << plain;
    EXPECT_EQ(p.line, 0u) << plain;
  }
  EXPECT_EQ(ParseNameEntry("x@C:/src/k.cu:9"), (RegionName{"x", "C:/src/k.cu", 9}));
  EXPECT_EQ(ParseNameEntry("mma \t@k.cu:9"), (RegionName{"mma", "k.cu", 9}));
  EXPECT_EQ(ParseNameEntry("k @ gemm.cu:12"), (RegionName{"k", "gemm.cu", 12}));
  EXPECT_EQ(ParseNameEntry("a@b@f.cu:3"), (RegionName{"a@b", "f.cu", 3}));
}

}  // namespace
