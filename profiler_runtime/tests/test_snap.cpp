// The snap's request parsing and its pointer scan (no GPU: the resolver is a table).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <map>

#include "gpu/snap/pointer_scan.h"
#include "gpu/snap/snap_request.h"

namespace strata::rt::gpu::snap {
namespace {

TEST(SnapRequest, KernelAndN) {
  SnapRequest r;
  EXPECT_EQ(ParseSnapSpec("axpy_step:3", &r), "");
  EXPECT_EQ(r.kernel, "axpy_step");
  EXPECT_EQ(r.nth, 3u);
  EXPECT_EQ(ParseSnapSpec("gemm", &r), "");
  EXPECT_EQ(r.nth, 1u);
  // A demangled name keeps its "::"; its longest identifier is the image key.
  EXPECT_EQ(ParseSnapSpec("at::native::vectorized_elementwise_kernel:12", &r), "");
  EXPECT_EQ(r.kernel, "at::native::vectorized_elementwise_kernel");
  EXPECT_EQ(r.nth, 12u);
  EXPECT_EQ(r.image_key, "vectorized_elementwise_kernel");
  EXPECT_EQ(ParseSnapSpec("ns::kernel", &r), "");
  EXPECT_EQ(r.kernel, "ns::kernel");
  EXPECT_NE(ParseSnapSpec("k:0", &r), "");
  EXPECT_NE(ParseSnapSpec(":3", &r), "");
}

// The launches before the snapped one are kept only when asked for, at most kMaxPreludes.
TEST(SnapRequest, PreludesFromTheEnvironment) {
  ::setenv("STRATA_SNAP", "axpy_step:3", 1);
  ::unsetenv("STRATA_SNAP_PRELUDES");
  SnapRequest r;
  std::string why;
  ASSERT_TRUE(SnapRequestFromEnv(&r, &why)) << why;
  EXPECT_EQ(r.preludes, 0) << "off by default";
  for (auto [value, want] : std::map<std::string, int>{{"4", 4}, {"12", 12}, {"40", kMaxPreludes}, {"-3", 0}}) {
    ::setenv("STRATA_SNAP_PRELUDES", value.c_str(), 1);
    SnapRequest q;
    ASSERT_TRUE(SnapRequestFromEnv(&q, &why)) << why;
    EXPECT_EQ(q.preludes, want) << value;
  }
  ::unsetenv("STRATA_SNAP_PRELUDES");
  ::unsetenv("STRATA_SNAP");
}

TEST(PointerScan, ParamsStructsAndOneLevelDown) {
  snapshot::Snapshot s;
  // (struct {float* x; float* w; int n;}, float a, float* out, long n2)
  s.params = {{0, 24}, {24, 4}, {32, 8}, {40, 8}};
  std::string buf(48, '\0');
  uint64_t x = 0x7f0000200100, w = 0x7f0000400000, out = 0x7f0000600000, bogus = 0x7f00deadbe00;
  std::memcpy(&buf[0], &x, 8);
  std::memcpy(&buf[8], &w, 8);
  int n = 1 << 20;
  std::memcpy(&buf[16], &n, 4);
  std::memcpy(&buf[32], &out, 8);
  std::memcpy(&buf[40], &bogus, 8);
  std::map<uint64_t, uint64_t> allocations = {{0x7f0000200000, 1 << 20}, {0x7f0000400000, 4096}, {0x7f0000600000, 1 << 20}};
  Resolver resolve = [&](uint64_t a) {
    Resolved r;
    for (auto [base, size] : allocations)
      if (a >= base && a < base + size) {
        r.kind = snapshot::WordKind::kDevice;
        r.base = base;
        r.size = size;
      }
    return r;
  };
  ScanWords(reinterpret_cast<const uint8_t*>(buf.data()), buf.size(), -1, resolve, &s);
  ASSERT_EQ(s.regions.size(), 3u);
  EXPECT_EQ(s.regions[0].base, 0x7f0000200000u);  // x points inside its allocation
  ASSERT_EQ(s.pointers.size(), 4u);
  EXPECT_EQ(s.pointers[3].kind, snapshot::WordKind::kUnresolved);  // the whole 8-byte parameter at 40
  EXPECT_EQ(s.pointers[3].offset, 40u);
  // A small region holding a pointer to a new allocation, and one to a known one.
  allocations[0x7f0000800000] = 4096;
  std::string region(4096, '\0');
  uint64_t p1 = 0x7f0000800010, p2 = out;
  std::memcpy(&region[0], &p1, 8);
  std::memcpy(&region[64], &p2, 8);
  ScanWords(reinterpret_cast<const uint8_t*>(region.data()), region.size(), 1, resolve, &s);
  ASSERT_EQ(s.regions.size(), 4u);
  EXPECT_EQ(s.pointers.back().in_region, 1);
  EXPECT_EQ(s.pointers.back().region, 2);
  EXPECT_EQ(BoundRegions((1 << 20) + 4096, &s), (1u << 20) + 4096);
  EXPECT_TRUE(s.regions[0].saved);
  EXPECT_TRUE(s.regions[1].saved);
  EXPECT_FALSE(s.regions[2].saved);  // over the bound: listed without contents
  EXPECT_FALSE(s.regions[3].saved);
}

}  // namespace
}  // namespace strata::rt::gpu::snap
