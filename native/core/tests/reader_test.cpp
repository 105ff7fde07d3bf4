// Writer -> reader round trip and every validation error of the reader.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "strata/core/api.h"
#include "strata/format/reader.h"
#include "test_util.h"

namespace fmt = strata::format;
using strata::core::Error;
using strata::core::Profile;
using strata::test::SmallProfile;

namespace {

std::string ErrorOf(const std::vector<unsigned char>& bytes) {
  try {
    Profile::FromBytes(bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Recomputes the checksum so that a test reaches the check it targets.
void Reseal(std::vector<unsigned char>& b) {
  fmt::FileHeader h;
  std::memcpy(&h, b.data(), sizeof h);
  h.checksum = fmt::Fnv1a(b.data() + sizeof h, b.size() - sizeof h);
  std::memcpy(b.data(), &h, sizeof h);
}

fmt::FileHeader* Header(std::vector<unsigned char>& b) { return reinterpret_cast<fmt::FileHeader*>(b.data()); }

fmt::SectionEntry* Section(std::vector<unsigned char>& b, fmt::SectionKind kind) {
  auto* h = Header(b);
  auto* t = reinterpret_cast<fmt::SectionEntry*>(b.data() + h->section_table_offset);
  for (uint32_t i = 0; i < h->section_count; ++i) if (t[i].kind == uint32_t(kind)) return &t[i];
  return nullptr;
}

template <typename T>
T* Record(std::vector<unsigned char>& b, fmt::SectionKind kind, size_t i) {
  return reinterpret_cast<T*>(b.data() + Section(b, kind)->offset) + i;
}

// Applies `mutate`, reseals and expects an Error containing `needle`.
template <typename F>
void ExpectError(F mutate, const std::string& needle) {
  auto b = SmallProfile();
  mutate(b);
  Reseal(b);
  std::string err = ErrorOf(b);
  EXPECT_NE(err.find(needle), std::string::npos) << "error was: '" << err << "', expected '" << needle << "'";
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

}  // namespace

TEST(Reader, RoundTrip) {
  auto p = Profile::FromBytes(SmallProfile());
  EXPECT_EQ(p->version(), 1u);
  EXPECT_EQ(p->node_count(), 3u);
  ASSERT_EQ(p->metrics().size(), 1u);
  EXPECT_EQ(p->metrics()[0].name, "cpu_time");
  EXPECT_EQ(p->metrics()[0].unit, "ns");
  EXPECT_EQ(p->meta("command").value(), "python train.py");
  EXPECT_FALSE(p->meta("nope").has_value());
  auto meta = p->meta();
  ASSERT_EQ(meta.size(), 2u);
  EXPECT_EQ(meta[1].first, "samples");
  EXPECT_EQ(p->total_count(0), 6u);
  EXPECT_DOUBLE_EQ(p->total(0), 210.0);
  auto v = p->BuildView(strata::core::ViewKind::kTopDown);
  ASSERT_EQ(v.parent.size(), 3u);
  EXPECT_EQ(v.frames[1].name, "main");
  EXPECT_EQ(v.frames[1].file, "/src/train.py");
  EXPECT_EQ(v.frames[1].line, 10u);
  // Native frame, module missing: the stored dynamic symbol, demangled.
  EXPECT_EQ(v.frames[2].name, "work()");
  EXPECT_EQ(v.frames[2].kind, "native");
  EXPECT_EQ(v.frames[2].module, "/nonexistent/libwork.so");
  EXPECT_EQ(v.frames[2].address, 0x1234u);
  EXPECT_DOUBLE_EQ(v.metrics[2][0].exclusive, 180.0);
  EXPECT_EQ(v.metrics[2][0].count, 4u);
  EXPECT_DOUBLE_EQ(v.metrics[2][0].min, 30.0);
  EXPECT_DOUBLE_EQ(v.metrics[2][0].max, 60.0);
  EXPECT_DOUBLE_EQ(v.metrics[2][0].mean, 45.0);
  EXPECT_NEAR(v.metrics[2][0].std, std::sqrt(125.0), 1e-9);
}

TEST(Reader, OpenFromFile) {
  std::string dir = strata::test::TempDir();
  strata::test::WriteFile(dir + "/p.strata", SmallProfile());
  auto p = Profile::Open(dir + "/p.strata");
  EXPECT_EQ(p->node_count(), 3u);
  EXPECT_THROW(Profile::Open(dir + "/missing.strata"), Error);
  EXPECT_THROW(Profile::Open(dir), Error);
  std::system(("rm -rf " + dir).c_str());
}

TEST(Reader, HeaderErrors) {
  EXPECT_EQ(ErrorOf({}), "not a Strata profile: empty file");
  EXPECT_EQ(ErrorOf({'h', 'e', 'l', 'l', 'o'}), "not a Strata profile: bad magic");
  std::vector<unsigned char> elf(200, 0);
  std::memcpy(elf.data(), "\x7f" "ELF", 4);
  EXPECT_EQ(ErrorOf(elf), "not a Strata profile: bad magic");
  auto b = SmallProfile();
  std::vector<unsigned char> head(b.begin(), b.begin() + 20);
  EXPECT_EQ(ErrorOf(head), "truncated profile: file has 20 bytes, the header alone needs 64");
  std::vector<unsigned char> cut(b.begin(), b.begin() + 100);
  EXPECT_EQ(ErrorOf(cut), "truncated profile: header says " + std::to_string(b.size()) + " bytes, file has 100");
}

TEST(Reader, Version) {
  ExpectError([](auto& b) { Header(b)->version = 7; },
              "profile format version 7 is newer than this Strata supports (1)");
  ExpectError([](auto& b) { Header(b)->version = 0; }, "unsupported profile format version 0");
}

TEST(Reader, HeaderFields) {
  ExpectError([](auto& b) { Header(b)->header_size = 128; }, "header size is 128, expected 64");
  ExpectError([](auto& b) { b.push_back(0); }, "trailing bytes");
  ExpectError([](auto& b) { Header(b)->section_entry_size = 16; }, "section entry size is 16");
  ExpectError([](auto& b) { Header(b)->section_table_offset = b.size() - 8; }, "section table");
  ExpectError([](auto& b) { Header(b)->section_count = 0x7fffffff; }, "section table");
  ExpectError([](auto& b) { Header(b)->section_table_offset = ~0ull - 10; }, "outside the file");
  ExpectError([](auto& b) { Header(b)->section_table_offset -= 4; }, "section table");
}

TEST(Reader, Checksum) {
  auto b = SmallProfile();
  b[100] ^= 1;
  EXPECT_EQ(ErrorOf(b), "corrupt profile: checksum mismatch (file damaged or modified)");
}

TEST(Reader, SectionTable) {
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kNodes)->offset = b.size(); }, "nodes section");
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kNodes)->size = ~0ull; }, "outside the file");
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kNodes)->offset += 4; }, "not 8-byte aligned");
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kNodes)->offset = 0; }, "outside the file");
  ExpectError([](auto& b) {
    Section(b, fmt::SectionKind::kNodes)->offset = Section(b, fmt::SectionKind::kFrames)->offset;
  }, "overlaps");
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kMeta)->kind = uint32_t(fmt::SectionKind::kFrames); },
              "more than one frames section");
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kNodes)->kind = 99; }, "no nodes section");
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kStrings)->kind = 99; }, "no strings section");
}

TEST(Reader, UnknownSectionKindIsSkipped) {
  auto b = SmallProfile();
  Section(b, fmt::SectionKind::kMeta)->kind = 1000;  // a future optional section
  Reseal(b);
  auto p = Profile::FromBytes(b);
  EXPECT_TRUE(p->meta().empty());
}

TEST(Reader, RecordSizes) {
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kNodes)->record_size = 16; },
              "nodes section has record size 16, expected 8");
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kNodes)->count += 1; }, "not 4 records of 8");
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kNodes)->count = (1ull << 61) + 3; }, "nodes section holds");
  ExpectError([](auto& b) { Section(b, fmt::SectionKind::kStrings)->record_size = 4; }, "strings section has record size 4");
}

TEST(Reader, Strings) {
  ExpectError([](auto& b) { Record<fmt::StringsHeader>(b, fmt::SectionKind::kStrings, 0)->count += 1; },
              "strings section header says");
  ExpectError([](auto& b) {
    Record<fmt::StringsHeader>(b, fmt::SectionKind::kStrings, 0)->count = 0x7fffffff;
    Section(b, fmt::SectionKind::kStrings)->count = 0x7fffffff;
  }, "too small for 2147483647 string offsets");
  auto offsets = [](auto& b) {
    return reinterpret_cast<uint32_t*>(b.data() + Section(b, fmt::SectionKind::kStrings)->offset + 8);
  };
  ExpectError([&](auto& b) { offsets(b)[2] = offsets(b)[3] + 1; }, "not monotonic");
  ExpectError([&](auto& b) { offsets(b)[0] = 1; }, "first string offset is 1");
  ExpectError([&](auto& b) { offsets(b)[1] = 1; }, "string 0 is not empty");
  ExpectError([&](auto& b) {
    uint32_t n = Record<fmt::StringsHeader>(b, fmt::SectionKind::kStrings, 0)->count;
    offsets(b)[n] += 1;
  }, "string bytes end at");
}

TEST(Reader, Indices) {
  ExpectError([](auto& b) { Record<fmt::MetaEntry>(b, fmt::SectionKind::kMeta, 0)->value = 999; },
              "meta entry 0 refers to string 999");
  ExpectError([](auto& b) { Record<fmt::ModuleRecord>(b, fmt::SectionKind::kModules, 0)->path = 999; },
              "module 0 refers to string 999");
  ExpectError([](auto& b) { Record<fmt::FrameRecord>(b, fmt::SectionKind::kFrames, 1)->name = 999; },
              "frame 1 refers to string 999");
  ExpectError([](auto& b) { Record<fmt::FrameRecord>(b, fmt::SectionKind::kFrames, 2)->module = 5; },
              "frame 2 refers to module 5");
  ExpectError([](auto& b) { Record<fmt::FrameRecord>(b, fmt::SectionKind::kFrames, 1)->kind = 42; },
              "frame 1 has unknown kind 42");
  ExpectError([](auto& b) { Record<fmt::NodeRecord>(b, fmt::SectionKind::kNodes, 2)->parent = 2; },
              "node 2 has parent 2 (parents must precede children)");
  ExpectError([](auto& b) { Record<fmt::NodeRecord>(b, fmt::SectionKind::kNodes, 2)->parent = fmt::kNone; },
              "node 2 has parent");
  ExpectError([](auto& b) { Record<fmt::NodeRecord>(b, fmt::SectionKind::kNodes, 0)->parent = 0; },
              "root node has a parent");
  ExpectError([](auto& b) { Record<fmt::NodeRecord>(b, fmt::SectionKind::kNodes, 1)->frame = 77; },
              "node 1 refers to frame 77");
  ExpectError([](auto& b) { Record<fmt::NodeRecord>(b, fmt::SectionKind::kNodes, 1)->frame = 0; },
              "node 1 has a root frame");
  ExpectError([](auto& b) { Record<fmt::NodeRecord>(b, fmt::SectionKind::kNodes, 0)->frame = 1; },
              "root node's frame is not of kind root");
  ExpectError([](auto& b) { Record<fmt::MetricDescriptor>(b, fmt::SectionKind::kMetrics, 0)->unit = 999; },
              "metric 0 refers to string 999");
  ExpectError([](auto& b) { Record<fmt::NodeMetricRecord>(b, fmt::SectionKind::kNodeMetrics, 1)->node = 9; },
              "node metric record 1 refers to node 9");
  ExpectError([](auto& b) { Record<fmt::NodeMetricRecord>(b, fmt::SectionKind::kNodeMetrics, 1)->metric = 3; },
              "node metric record 1 refers to metric 3");
  ExpectError([](auto& b) { Record<fmt::NodeMetricRecord>(b, fmt::SectionKind::kNodeMetrics, 1)->node = 1; },
              "not sorted");
  ExpectError([](auto& b) { Record<fmt::NodeMetricRecord>(b, fmt::SectionKind::kNodeMetrics, 0)->sum = NAN; },
              "non-finite");
  ExpectError([](auto& b) { Record<fmt::NodeMetricRecord>(b, fmt::SectionKind::kNodeMetrics, 0)->m2 = -1; },
              "non-finite");
}

TEST(Reader, TruncatedAtEveryByte) {
  const auto full = SmallProfile();
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<unsigned char> cut(full.begin(), full.begin() + long(n));
    std::string err = ErrorOf(cut);
    ASSERT_FALSE(err.empty()) << "no error at " << n << " bytes";
    ASSERT_EQ(err.find('\n'), std::string::npos);
  }
  // The same cuts with the header's file_size and checksum fixed up, so that every later check
  // sees a short section instead.
  for (size_t n = sizeof(fmt::FileHeader); n < full.size(); ++n) {
    std::vector<unsigned char> cut(full.begin(), full.begin() + long(n));
    Header(cut)->file_size = n;
    Reseal(cut);
    ASSERT_FALSE(ErrorOf(cut).empty()) << "no error at " << n << " bytes (resealed)";
  }
}

TEST(Reader, RandomCorruptionNeverCrashes) {
  const auto full = SmallProfile();
  std::mt19937 rng(1234);
  size_t accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    auto b = full;
    int flips = 1 + int(rng() % 4);
    for (int k = 0; k < flips; ++k) b[sizeof(fmt::FileHeader) + rng() % (b.size() - sizeof(fmt::FileHeader))] = uint8_t(rng());
    Reseal(b);
    try {
      auto p = Profile::FromBytes(b);
      for (auto kind : {strata::core::ViewKind::kTopDown, strata::core::ViewKind::kBottomUp, strata::core::ViewKind::kFlat})
        p->BuildView(kind);
      ++accepted;
    } catch (const Error&) {
    }
  }
  SUCCEED() << accepted << " mutated profiles were still valid";
}
