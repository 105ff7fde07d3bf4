// GPU code decoding (issue 4): the blobs section, cubin functions and line table, the nvdisasm
// listing, and pc frames resolved to SASS + CUDA lines in views. Real fixtures from an H100
// (test/fixtures/h100/stalls, see its README).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "gpu_code/cubin_lines.h"
#include "gpu_code/cubin_reader.h"
#include "gpu_code/gpu_code.h"
#include "gpu_code/sass_listing.h"
#include "strata/core/api.h"
#include "strata/format/reader.h"
#include "test_util.h"

namespace fmt = strata::format;
namespace gpu = strata::core::gpu;
using strata::core::Error;
using strata::core::Profile;
using strata::core::ViewKind;

namespace {

const std::string kDir = STRATA_STALL_FIXTURES;
const std::string kMath = "_Z10math_chainPffi";
const std::string kMem = "_Z9mem_chainPKjPjji";
const std::string kSource = "/work/main/test/stalls/stall_kernels.cu";

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string ProfileError(const std::vector<unsigned char>& bytes) {
  return ErrorOf([&] { Profile::FromBytes(bytes); });
}

const gpu::SassListing& Listing() {
  static const gpu::SassListing l = gpu::ParseSassListing(Slurp(kDir + "/stall_kernels.sass"));
  return l;
}

// --- SASS listing ------------------------------------------------------------------------------

TEST(SassListing, FunctionsAndKnownInstructions) {
  const auto& l = Listing();
  ASSERT_EQ(l.functions.size(), 2u);
  ASSERT_TRUE(l.functions.count(kMath) && l.functions.count(kMem));
  EXPECT_EQ(l.functions.at(kMath).size(), 0x780u / 16);  // 16-byte instructions to the end
  EXPECT_EQ(l.functions.at(kMem).size(), 0x880u / 16);

  // The FFMA of the inlined helper: line 14 inlined at line 26 (first comment = innermost,
  // second = the caller's own line).
  const gpu::SassInstruction* ffma = l.Find(kMath, 0x140);
  ASSERT_NE(ffma, nullptr);
  EXPECT_EQ(ffma->text, "FFMA R5, R5, R2, 0.5");
  const gpu::SassLocation* loc = l.LocationOf(*ffma);
  ASSERT_NE(loc, nullptr);
  EXPECT_EQ(loc->innermost.file, kSource);
  EXPECT_EQ(loc->innermost.line, 14u);
  ASSERT_EQ(loc->inlined_at.size(), 1u);
  EXPECT_EQ(loc->inlined_at[0].line, 26u);
  EXPECT_EQ(loc->inlined_at[0].file, kSource);
  // The second call of the helper, and a location that carries on to later instructions.
  for (uint64_t pc : {0x160, 0x1a0}) {
    const gpu::SassLocation* l2 = l.LocationOf(*l.Find(kMath, pc));
    ASSERT_NE(l2, nullptr);
    EXPECT_EQ(l2->innermost.line, 14u);
    ASSERT_EQ(l2->inlined_at.size(), 1u);
    EXPECT_EQ(l2->inlined_at[0].line, 27u);
  }
  // A predicated branch keeps its predicate and label; the loop line is not inlined.
  const gpu::SassInstruction* bra = l.Find(kMath, 0x70);
  ASSERT_NE(bra, nullptr);
  EXPECT_EQ(bra->text, "@!P0 BRA `(.L_x_0)");
  EXPECT_EQ(l.LocationOf(*bra)->innermost.line, 25u);
  EXPECT_TRUE(l.LocationOf(*bra)->inlined_at.empty());

  // The dependent load of the pointer chase: line 19.
  const gpu::SassInstruction* ldg = l.Find(kMem, 0x290);
  ASSERT_NE(ldg, nullptr);
  EXPECT_EQ(ldg->text, "LDG.E.CONSTANT R7, desc[UR4][R6.64]");
  EXPECT_EQ(l.LocationOf(*ldg)->innermost.line, 19u);
  EXPECT_EQ(l.Find(kMem, 0x298), nullptr);  // not an instruction boundary
  EXPECT_EQ(l.Find("_Z5otherv", 0), nullptr);
}

TEST(SassListing, DeeperChainsAndLoneInlinedAt) {
  const std::string text =
      "\t.section\t.text._Z1kv,\"ax\",@progbits\n"
      "\t//## File \"/a.cu\", line 3 inlined at \"/a.cu\", line 7\n"
      "\t//## File \"/a.cu\", line 7 inlined at \"/b.cu\", line 40\n"
      "\t//## File \"/b.cu\", line 40\n"
      "        /*0000*/                   MOV R1, R2 ;\n"
      "\t//## File \"/a.cu\", line 5 inlined at \"/b.cu\", line 41\n"
      "        /*0010*/                   EXIT ;\n";
  gpu::SassListing l = gpu::ParseSassListing(text);
  const gpu::SassLocation* a = l.LocationOf(*l.Find("_Z1kv", 0));
  ASSERT_EQ(a->inlined_at.size(), 2u);
  EXPECT_EQ(a->innermost.line, 3u);
  EXPECT_EQ(a->inlined_at[0], (gpu::SourceLine{"/a.cu", 7}));
  EXPECT_EQ(a->inlined_at[1], (gpu::SourceLine{"/b.cu", 40}));
  const gpu::SassLocation* b = l.LocationOf(*l.Find("_Z1kv", 0x10));
  ASSERT_EQ(b->inlined_at.size(), 1u);
  EXPECT_EQ(b->inlined_at[0], (gpu::SourceLine{"/b.cu", 41}));
  EXPECT_EQ(l.Find("_Z1kv", 0x10)->text, "EXIT");
}

TEST(SassListing, NotAListing) {
  EXPECT_EQ(ErrorOf([] { gpu::ParseSassListing("hello\nworld\n"); }),
            "SASS listing: no functions with instructions found");
  EXPECT_EQ(ErrorOf([] { gpu::ParseSassListing(""); }), "SASS listing: no functions with instructions found");
  // Truncated mid-line: what is there still parses, nothing crashes.
  std::string s = Slurp(kDir + "/stall_kernels.sass");
  for (size_t cut : {size_t(10), size_t(700), s.size() / 2, s.size() - 7})
    EXPECT_NO_FATAL_FAILURE({ try { gpu::ParseSassListing(s.substr(0, cut)); } catch (const Error&) {} });
}

// --- Cubin -------------------------------------------------------------------------------------

TEST(Cubin, FunctionsAndLineTableAgreeWithListing) {
  gpu::Cubin c = gpu::ReadCubin(Slurp(kDir + "/stall_kernels.cubin"));
  ASSERT_EQ(c.functions.size(), 2u);
  std::map<std::string, uint64_t> sizes;
  for (const auto& f : c.functions) sizes[f.name] = f.size;
  EXPECT_EQ(sizes[kMath], 0x780u);
  EXPECT_EQ(sizes[kMem], 0x880u);
  ASSERT_EQ(c.line_relocations.size(), 2u);

  gpu::CubinLines lines = gpu::DecodeCubinLines(c);
  EXPECT_EQ(lines.error, "");
  ASSERT_EQ(lines.functions.size(), 2u);
  const gpu::LineRow* r = lines.Find(kMath, 0x140);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->line, 14u);
  EXPECT_EQ(r->file, kSource);
  EXPECT_EQ(lines.Find(kMath, 0x120)->line, 14u);  // rows 26 then 14 at one address: innermost
  EXPECT_EQ(lines.Find(kMem, 0x290)->line, 19u);
  EXPECT_EQ(lines.Find(kMem, 0x880), nullptr);     // past the end of the function

  // Every instruction's innermost line: the listing and the line table agree.
  size_t compared = 0;
  for (const auto& [fn, instructions] : Listing().functions) {
    for (const auto& ins : instructions) {
      const gpu::SassLocation* loc = Listing().LocationOf(ins);
      ASSERT_NE(loc, nullptr) << fn << "+" << ins.offset;
      const gpu::LineRow* row = lines.Find(fn, ins.offset);
      ASSERT_NE(row, nullptr) << fn << "+" << ins.offset;
      EXPECT_EQ(row->line, loc->innermost.line) << fn << "+0x" << std::hex << ins.offset;
      EXPECT_EQ(row->file, loc->innermost.file);
      ++compared;
    }
  }
  EXPECT_EQ(compared, (0x780u + 0x880u) / 16);
}

TEST(Cubin, WithoutLineInfo) {
  gpu::Cubin c = gpu::ReadCubin(Slurp(kDir + "/stall_kernels_nolines.cubin"));
  ASSERT_EQ(c.functions.size(), 2u);
  EXPECT_TRUE(c.debug_line.empty());
  gpu::CubinLines lines = gpu::DecodeCubinLines(c);
  EXPECT_EQ(lines.error, "");
  EXPECT_TRUE(lines.functions.empty());
  EXPECT_EQ(lines.Find(kMath, 0x140), nullptr);
}

TEST(Cubin, BadBytesGiveOneLineErrors) {
  const std::string cubin = Slurp(kDir + "/stall_kernels.cubin");
  EXPECT_EQ(ErrorOf([] { gpu::ReadCubin("garbage bytes"); }), "cubin: not an ELF file");
  EXPECT_EQ(ErrorOf([] { gpu::ReadCubin(""); }), "cubin: not an ELF file");
  for (size_t cut : {size_t(4), size_t(20), size_t(64), size_t(100), size_t(0x800), cubin.size() / 2, cubin.size() - 1}) {
    std::string e = ErrorOf([&] {
      gpu::Cubin c = gpu::ReadCubin(cubin.substr(0, cut));
      gpu::DecodeCubinLines(c);
    });
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    if (cut < 0x2000) EXPECT_EQ(e.rfind("cubin: ", 0), 0u) << cut << ": " << e;
  }
  // A host ELF file is not a cubin.
  std::string self = Slurp("/proc/self/exe");
  EXPECT_EQ(ErrorOf([&] { gpu::ReadCubin(self); }).rfind("cubin: ELF machine is 62, not EM_CUDA", 0), 0u);
  // Random damage inside the line table: an error or a result, never a crash.
  std::string damaged = cubin;
  for (size_t i = 0x7d8 + 0x50; i < 0x7d8 + 0x184; i += 7) damaged[i] = char(0xff);
  EXPECT_NO_FATAL_FAILURE({
    try { gpu::DecodeCubinLines(gpu::ReadCubin(damaged)); } catch (const Error&) {}
  });
}

// --- Blobs section -----------------------------------------------------------------------------

std::vector<unsigned char> BlobProfile(const std::vector<std::pair<fmt::BlobKind, std::string>>& blobs) {
  fmt::ProfileWriter w;
  uint32_t mod = w.Module("cubin:1234abcd", "1234abcd", 0);
  for (const auto& [k, b] : blobs) w.Blob(mod, k, b);
  return w.Serialize();
}

fmt::ProfileReader Read(const std::vector<unsigned char>& b) { return fmt::ProfileReader::Parse(b.data(), b.size()); }

void Reseal(std::vector<unsigned char>& b) {
  auto* h = reinterpret_cast<fmt::FileHeader*>(b.data());
  h->checksum = fmt::Fnv1a(b.data() + sizeof *h, b.size() - sizeof *h);
}

// The blobs section's first entry (header + entries at its start).
fmt::BlobEntry* Entry(std::vector<unsigned char>& b, size_t i) {
  auto* h = reinterpret_cast<fmt::FileHeader*>(b.data());
  auto* t = reinterpret_cast<fmt::SectionEntry*>(b.data() + h->section_table_offset);
  for (uint32_t s = 0; s < h->section_count; ++s)
    if (t[s].kind == uint32_t(fmt::SectionKind::kBlobs))
      return reinterpret_cast<fmt::BlobEntry*>(b.data() + t[s].offset + sizeof(fmt::BlobsHeader)) + i;
  return nullptr;
}

TEST(Blobs, RoundTripDedupeAndAlignment) {
  auto bytes = BlobProfile({{fmt::BlobKind::kCubin, "abc"}, {fmt::BlobKind::kSassListing, "old"},
                            {fmt::BlobKind::kSassListing, "listing text"}});
  fmt::ProfileReader r = Read(bytes);
  ASSERT_EQ(r.blob_count(), 2u);
  EXPECT_EQ(r.blob(0).kind, fmt::BlobKind::kCubin);
  EXPECT_EQ(r.blob(0).bytes, "abc");
  EXPECT_EQ(r.blob(1).kind, fmt::BlobKind::kSassListing);
  EXPECT_EQ(r.blob(1).bytes, "listing text");  // last wins
  EXPECT_EQ(r.blob(1).module, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(r.blob(1).bytes.data()) % 8, 0u);
  // No blobs: no section.
  EXPECT_EQ(Read(BlobProfile({})).blob_count(), 0u);
  EXPECT_EQ(std::string(fmt::SectionKindName(8)), "blobs");
}

TEST(Blobs, ValidationErrors) {
  auto base = BlobProfile({{fmt::BlobKind::kCubin, "abcdefgh12"}, {fmt::BlobKind::kSassListing, "listing"}});
  auto damaged = [&](const std::function<void(std::vector<unsigned char>&)>& f) {
    auto b = base;
    f(b);
    Reseal(b);
    return ProfileError(b);
  };
  EXPECT_EQ(damaged([](auto& b) { Entry(b, 1)->module = 5; }),
            "corrupt profile: blob 1 refers to module 5, there are 1");
  EXPECT_EQ(damaged([](auto& b) { Entry(b, 1)->size = 1000; }),
            "corrupt profile: blob 1 (offset 16, 1000 bytes) is outside the blobs section");
  EXPECT_EQ(damaged([](auto& b) { Entry(b, 1)->offset = 4; }), "corrupt profile: blob 1 is not 8-byte aligned");
  EXPECT_EQ(damaged([](auto& b) { Entry(b, 1)->offset = 8; }).rfind("corrupt profile: blob 1 hash mismatch", 0), 0u);
  EXPECT_EQ(damaged([](auto& b) {
              Entry(b, 1)->offset = 8;
              Entry(b, 1)->size = 2;
              Entry(b, 1)->hash = fmt::Fnv1a64(reinterpret_cast<const unsigned char*>("12"), 2);
            }),
            "corrupt profile: blob 0 overlaps blob 1");
  EXPECT_EQ(damaged([](auto& b) { Entry(b, 1)->kind = 1; }),
            "corrupt profile: blob 1 repeats (module 0, kind 1) of blob 0");
  EXPECT_EQ(damaged([](auto& b) { Entry(b, 0)->hash ^= 1; }), "corrupt profile: blob 0 hash mismatch");
  EXPECT_EQ(damaged([](auto& b) { reinterpret_cast<fmt::BlobsHeader*>(Entry(b, 0))[-1].count = 3; }),
            "corrupt profile: blobs section header says 3 blobs, section table says 2");
}

TEST(Blobs, MetaRewriteKeepsThem) {
  const std::string dir = strata::test::TempDir();
  const std::string path = dir + "/p.strata";
  strata::test::WriteFile(path, BlobProfile({{fmt::BlobKind::kCubin, Slurp(kDir + "/stall_kernels.cubin")}}));
  strata::core::RewriteProfileMeta(path, {{"exit", "exited with code 0"}});
  std::string bytes = Slurp(path);
  std::vector<unsigned char> v(bytes.begin(), bytes.end());
  fmt::ProfileReader r = Read(v);
  ASSERT_EQ(r.blob_count(), 1u);
  EXPECT_EQ(r.blob(0).bytes, Slurp(kDir + "/stall_kernels.cubin"));
}

}  // namespace
