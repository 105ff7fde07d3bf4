// The frame source lines section: writer -> reader round trip (lists interned with their frame,
// repeated lines kept once), a newer section version and an unknown kind skipped, and the
// reader's one-line errors on a damaged section.
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

const std::vector<fmt::SourceLine> kLines = {
    {"/m/model.py", "forward", 20}, {"/m/model.py", "forward", 19}, {"/m/model.py", "forward", 20}};

struct Written {
  std::vector<unsigned char> bytes;
  uint32_t fused = 0, other = 0, plain = 0;
};

Written Write() {
  fmt::ProfileWriter w;
  Written out;
  out.plain = w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "fused (2 lines)", "", 0);
  out.fused = w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "fused (2 lines)", "", 0, 0, fmt::SourceLinesRole::kFused, kLines);
  EXPECT_EQ(w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "fused (2 lines)", "", 0, 0, fmt::SourceLinesRole::kFused, kLines),
            out.fused);
  out.other = w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "fused (2 lines)", "", 0, 0, fmt::SourceLinesRole::kFused,
                      {{"/m/model.py", "forward", 21}, {"/m/block.py", "gelu", 7}});
  EXPECT_EQ(w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "fused (2 lines)", "", 0, 0, fmt::SourceLinesRole::kFused, {}),
            out.plain);
  w.Child(w.Child(0, out.fused), out.other);
  out.bytes = w.Serialize();
  return out;
}

fmt::FrameSourceLinesHeader* Head(std::vector<unsigned char>& b) {
  return fmt::test::SectionHeader<fmt::FrameSourceLinesHeader>(b, fmt::SectionKind::kFrameSourceLines);
}
fmt::FrameSourceListRecord* ListAt(std::vector<unsigned char>& b, size_t i) {
  return reinterpret_cast<fmt::FrameSourceListRecord*>(Head(b) + 1) + i;
}
fmt::SourceLineRecord* LineAt(std::vector<unsigned char>& b, size_t i) {
  return reinterpret_cast<fmt::SourceLineRecord*>(ListAt(b, Head(b)->list_count)) + i;
}

template <typename Damage>
std::string Damaged(Damage damage) {
  return fmt::test::ErrorAfter(Write().bytes, damage);
}

}  // namespace

TEST(FrameSourceLines, RoundTrip) {
  Written w = Write();
  auto r = fmt::ProfileReader::Parse(w.bytes.data(), w.bytes.size());
  EXPECT_EQ(r.frame_source_lines_version(), fmt::kFrameSourceLinesVersion);
  EXPECT_NE(w.fused, w.plain);
  EXPECT_NE(w.fused, w.other);
  ASSERT_EQ(r.frame_source_list_count(), 2u);
  EXPECT_TRUE(r.frame_source_lines(w.plain, fmt::SourceLinesRole::kFused).empty());
  auto lines = r.frame_source_lines(w.fused, fmt::SourceLinesRole::kFused);
  ASSERT_EQ(lines.size, 2u);  // the repeated line 20 once, in the order given
  EXPECT_EQ(r.string(lines[0].file), "/m/model.py");
  EXPECT_EQ(r.string(lines[0].function), "forward");
  EXPECT_EQ(lines[0].line, 20u);
  EXPECT_EQ(lines[1].line, 19u);
  auto other = r.frame_source_lines(w.other, fmt::SourceLinesRole::kFused);
  ASSERT_EQ(other.size, 2u);
  EXPECT_EQ(r.string(other[1].file), "/m/block.py");
  EXPECT_EQ(r.string(other[1].function), "gelu");
  const fmt::FrameSourceListView v = r.frame_source_list(1);
  EXPECT_EQ(v.frame, w.other);
  EXPECT_EQ(v.role, uint32_t(fmt::SourceLinesRole::kFused));
}

TEST(FrameSourceLines, AbsentInOldProfiles) {
  fmt::ProfileWriter w;
  w.Child(0, w.Frame(fmt::FrameKind::kOperator, fmt::kNone, 0, "aten::mm", "", 0));
  auto b = w.Serialize();
  EXPECT_EQ(Section(b, fmt::SectionKind::kFrameSourceLines), nullptr);
  auto r = fmt::ProfileReader::Parse(b.data(), b.size());
  EXPECT_EQ(r.frame_source_lines_version(), 0u);
  EXPECT_EQ(r.frame_source_list_count(), 0u);
  EXPECT_TRUE(r.frame_source_lines(1, fmt::SourceLinesRole::kFused).empty());
}

TEST(FrameSourceLines, NewerVersionAndUnknownKindAreSkipped) {
  std::vector<unsigned char> b = Write().bytes;
  Head(b)->version = fmt::kFrameSourceLinesVersion + 1;
  Head(b)->list_count = 12345;  // a layout this reader does not know: not looked at
  Reseal(b);
  auto r = fmt::ProfileReader::Parse(b.data(), b.size());
  EXPECT_EQ(r.frame_source_lines_version(), fmt::kFrameSourceLinesVersion + 1);
  EXPECT_EQ(r.frame_source_list_count(), 0u);
  // A reader of before the section sees a kind it does not know: as such a reader, with the
  // kind renumbered to one nobody knows, the profile opens with the same frames.
  std::vector<unsigned char> c = Write().bytes;
  Section(c, fmt::SectionKind::kFrameSourceLines)->kind = 999;
  Reseal(c);
  auto rc = fmt::ProfileReader::Parse(c.data(), c.size());
  EXPECT_EQ(rc.frame_source_list_count(), 0u);
  EXPECT_EQ(rc.frames().size, r.frames().size);
}

TEST(FrameSourceLines, DamagedSectionsAreOneLineErrors) {
  EXPECT_EQ(Damaged([](auto& b) { Head(b)->version = 0; }), "corrupt profile: frame source lines section has version 0");
  EXPECT_EQ(Damaged([](auto& b) { Head(b)->list_count = 3; }),
            "corrupt profile: frame source lines section header says 3 lists, section table says 2");
  EXPECT_EQ(Damaged([](auto& b) { Head(b)->line_count = 5; }),
            "corrupt profile: frame source lines section (112 bytes) does not hold 2 lists and 5 lines");
  EXPECT_EQ(Damaged([](auto& b) { ListAt(b, 0)->frame = 99; }),
            "corrupt profile: frame source list 0 names frame 99, the profile has 4");
  EXPECT_EQ(Damaged([](auto& b) { ListAt(b, 1)->role = 0; }), "corrupt profile: frame source list 1 has role 0");
  EXPECT_EQ(Damaged([](auto& b) { ListAt(b, 1)->line_count = 0; }), "corrupt profile: frame source list 1 is empty");
  EXPECT_EQ(Damaged([](auto& b) { ListAt(b, 1)->first_line = 3; }),
            "corrupt profile: frame source list 1 refers to lines 3..5, the section has 4");
  EXPECT_EQ(Damaged([](auto& b) { ListAt(b, 1)->frame = ListAt(b, 0)->frame; }),
            "corrupt profile: frame source list 1 is out of (frame, role) order");
  EXPECT_EQ(Damaged([](auto& b) { LineAt(b, 2)->file = 9999; }),
            "corrupt profile: source line 2 refers to string 9999, the table has 7");
  EXPECT_EQ(Damaged([](auto& b) { Section(b, fmt::SectionKind::kFrameSourceLines)->record_size = 16; }),
            "corrupt profile: frame source lines section has record size 16, expected 0");
}
