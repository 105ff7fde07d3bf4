// The collectives section: writer -> reader round trip (sites updated in place, calls), absent
// from profiles without it, a newer section version skipped, and the reader's one-line errors on
// a damaged section.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "strata/format/reader.h"
#include "strata/format/writer.h"
#include "damaged_profile.h"

namespace fmt = strata::format;

namespace {

struct Written {
  std::vector<unsigned char> bytes;
  uint32_t op_node = 0;
};

Written Write() {
  fmt::ProfileWriter w;
  Written out;
  const uint32_t line = w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "step", "job.py", 57);
  const uint32_t op = w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "c10d::allreduce_", "", 0);
  out.op_node = w.Child(w.Child(0, line), op);
  fmt::CollectiveSiteRecord s{};
  s.node = out.op_node;
  s.op = uint32_t(fmt::CollectiveOp::kAllReduce);
  s.name = w.String("all_reduce");
  s.backend = w.String("gloo");
  s.dtype = w.String("Float");
  s.flags = fmt::kCollectiveSeqIssueOrder;
  s.elements = 16384;
  s.bytes = 65536;
  uint32_t site = w.AddCollectiveSite(s);
  uint32_t first = w.AddCollectiveCall(fmt::CollectiveCallRecord{1000, 0, 1, site, 0});
  w.AddCollectiveCall(fmt::CollectiveCallRecord{5000, 0, 2, site, 0});
  // The first call completes: the site and the call are updated in place.
  fmt::CollectiveSiteRecord& live = w.collective_site(site);
  live.count = 1;
  live.total_ns = live.min_ns = live.max_ns = 700;
  w.collective_call(first).end_ns = 1700;
  w.SetCollectivesLimit(4, 2);
  out.bytes = w.Serialize();
  return out;
}

using fmt::test::ErrorOf;
using fmt::test::Reseal;

fmt::CollectivesHeader* Head(std::vector<unsigned char>& b) {
  return fmt::test::SectionHeader<fmt::CollectivesHeader>(b, fmt::SectionKind::kCollectives);
}
fmt::CollectiveSiteRecord* SiteAt(std::vector<unsigned char>& b, size_t i) {
  return reinterpret_cast<fmt::CollectiveSiteRecord*>(Head(b) + 1) + i;
}
fmt::CollectiveCallRecord* CallAt(std::vector<unsigned char>& b, size_t i) {
  return reinterpret_cast<fmt::CollectiveCallRecord*>(SiteAt(b, Head(b)->site_count)) + i;
}

template <typename Damage>
std::string Damaged(Damage damage) {
  return fmt::test::ErrorAfter(Write().bytes, damage);
}

}  // namespace

TEST(Collectives, RoundTrip) {
  const Written w = Write();
  const auto r = fmt::ProfileReader::Parse(w.bytes.data(), w.bytes.size());
  EXPECT_EQ(r.collectives_version(), fmt::kCollectivesVersion);
  ASSERT_NE(r.collectives(), nullptr);
  EXPECT_EQ(r.collectives()->calls_dropped, 4u);
  EXPECT_EQ(r.collectives()->call_limit, 2u);
  ASSERT_EQ(r.collective_sites().size, 1u);
  const fmt::CollectiveSiteRecord& s = r.collective_sites()[0];
  EXPECT_EQ(s.node, w.op_node);
  EXPECT_EQ(s.op, uint32_t(fmt::CollectiveOp::kAllReduce));
  EXPECT_EQ(r.string(s.name), "all_reduce");
  EXPECT_EQ(r.string(s.backend), "gloo");
  EXPECT_EQ(r.string(s.dtype), "Float");
  EXPECT_EQ(r.string(s.group_name), "");
  EXPECT_EQ(s.flags, fmt::kCollectiveSeqIssueOrder);
  EXPECT_EQ(s.bytes, 65536u);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.total_ns, 700u);
  ASSERT_EQ(r.collective_calls().size, 2u);
  EXPECT_EQ(r.collective_calls()[0].end_ns, 1700u);
  EXPECT_EQ(r.collective_calls()[1].end_ns, 0u);  // in flight when written
  EXPECT_EQ(r.collective_calls()[1].seq, 2u);
  EXPECT_STREQ(fmt::SectionKindName(uint32_t(fmt::SectionKind::kCollectives)), "collectives");
}

TEST(Collectives, AbsentInOldProfiles) {
  fmt::ProfileWriter w;
  w.Child(0, w.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "f", "a.py", 1));
  const auto b = w.Serialize();
  const auto r = fmt::ProfileReader::Parse(b.data(), b.size());
  EXPECT_EQ(r.collectives_version(), 0u);
  EXPECT_EQ(r.collectives(), nullptr);
  EXPECT_TRUE(r.collective_sites().empty());
}

TEST(Collectives, NewerVersionIsSkipped) {
  std::vector<unsigned char> b = Write().bytes;
  Head(b)->version = fmt::kCollectivesVersion + 1;
  SiteAt(b, 0)->node = 999;  // a newer layout is not checked as this one
  Reseal(b);
  const auto r = fmt::ProfileReader::Parse(b.data(), b.size());
  EXPECT_EQ(r.collectives_version(), fmt::kCollectivesVersion + 1);
  EXPECT_EQ(r.collectives(), nullptr);
  EXPECT_TRUE(r.collective_calls().empty());
}

TEST(Collectives, DamagedSectionsAreRefusedInOneLine) {
  EXPECT_EQ(Damaged([](auto& b) { Head(b)->version = 0; }), "corrupt profile: collectives section has version 0");
  EXPECT_EQ(Damaged([](auto& b) { SiteAt(b, 0)->node = 77; }),
            "corrupt profile: collective site 0 refers to node 77, there are 3");
  EXPECT_EQ(Damaged([](auto& b) { SiteAt(b, 0)->min_ns = 900; }),
            "corrupt profile: collective site 0 has inconsistent times");
  EXPECT_EQ(Damaged([](auto& b) { CallAt(b, 1)->site = 9; }),
            "corrupt profile: collective call 1 refers to site 9, there are 1");
  EXPECT_EQ(Damaged([](auto& b) { CallAt(b, 0)->end_ns = 10; }),
            "corrupt profile: collective call 0 ends before it starts");
  EXPECT_EQ(Damaged([](auto& b) { Head(b)->call_count = 3; }),
            "corrupt profile: collectives section (176 bytes) does not hold 1 sites and 3 calls");
  EXPECT_NE(Damaged([](auto& b) { SiteAt(b, 0)->dtype = 12345; }).find("collective site 0"), std::string::npos);
}
