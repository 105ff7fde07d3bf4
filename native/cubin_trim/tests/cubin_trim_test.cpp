// Trimming real H100 cubins (test/fixtures/h100/stalls): the kept functions' code and line rows
// stay byte for byte what the core read from the whole cubin, the rest is gone, and a real
// PC-sampling profile carrying the trimmed cubin shows the same frames and lines for them.
#include "strata/cubin_trim/cubin_trim.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "gpu_code/cubin_lines.h"
#include "gpu_code/cubin_reader.h"
#include "rewrite.h"
#include "strata/core/api.h"
#include "strata/format/reader.h"
#include "strata/format/writer.h"

namespace fmt = strata::format;
namespace gpu = strata::core::gpu;
using strata::cubin_trim::TrimCubin;
using strata::cubin_trim::TrimmedCubin;

namespace {

const std::string kDir = STRATA_STALL_FIXTURES;
const std::string kData = STRATA_TRIM_DATA;
const std::string kMath = "_Z10math_chainPffi";
const std::string kMem = "_Z9mem_chainPKjPjji";

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The bytes of the named section, or nullopt-like "<none>" when there is no such section.
std::string Section(const std::string& elf, const std::string& name) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  auto sh = [&](size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, elf.data() + eh.e_shoff + i * sizeof s, sizeof s);
    return s;
  };
  Elf64_Shdr names = sh(eh.e_shstrndx);
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr s = sh(i);
    if (name == elf.c_str() + names.sh_offset + s.sh_name)
      return s.sh_type == SHT_NOBITS ? std::string() : elf.substr(s.sh_offset, s.sh_size);
  }
  return "<none>";
}

Elf64_Sym Symbol(const std::string& elf, const std::string& name) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr s;
    std::memcpy(&s, elf.data() + eh.e_shoff + i * sizeof s, sizeof s);
    if (s.sh_type != SHT_SYMTAB) continue;
    Elf64_Shdr str;
    std::memcpy(&str, elf.data() + eh.e_shoff + s.sh_link * sizeof s, sizeof s);
    for (size_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym y;
      std::memcpy(&y, elf.data() + s.sh_offset + off, sizeof y);
      if (name == elf.c_str() + str.sh_offset + y.st_name) return y;
    }
  }
  return Elf64_Sym{};
}

// What a disassembler relies on, one line per violation ("" when none): sections, segments and
// the section header table inside the file; links and infos naming sections; every symbol of a
// regular section inside its bytes, a function's with a non-zero size; relocations naming
// symbols that exist and offsets inside the section they patch.
std::string Inconsistencies(const std::string& elf) {
  std::string bad;
  auto say = [&](const std::string& s) { bad += s + "\n"; };
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  if (eh.e_shoff + eh.e_shnum * sizeof(Elf64_Shdr) > elf.size()) return "section header table past the end\n";
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), elf.data() + eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  size_t n_syms = 0;
  for (size_t i = 0; i < sh.size(); ++i) {
    const Elf64_Shdr& s = sh[i];
    if (s.sh_type != SHT_NOBITS && s.sh_offset + s.sh_size > elf.size()) say("section " + std::to_string(i) + " past the end");
    if (s.sh_link >= sh.size()) say("section " + std::to_string(i) + ": sh_link out of range");
    if ((s.sh_flags & SHF_INFO_LINK || s.sh_type == SHT_REL || s.sh_type == SHT_RELA) && s.sh_info >= sh.size())
      say("section " + std::to_string(i) + ": sh_info out of range");
    if (s.sh_type == SHT_SYMTAB) n_syms = s.sh_size / sizeof(Elf64_Sym);
  }
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr p;
    std::memcpy(&p, elf.data() + eh.e_phoff + i * sizeof p, sizeof p);
    if (p.p_offset + p.p_filesz > elf.size()) say("segment " + std::to_string(i) + " past the end");
  }
  for (const Elf64_Shdr& s : sh) {
    if (s.sh_type == SHT_SYMTAB) {
      for (size_t k = 0; k < n_syms; ++k) {
        Elf64_Sym y;
        std::memcpy(&y, elf.data() + s.sh_offset + k * sizeof y, sizeof y);
        if (y.st_shndx == SHN_UNDEF || y.st_shndx >= SHN_LORESERVE) continue;
        if (y.st_shndx >= sh.size()) { say("symbol " + std::to_string(k) + ": section out of range"); continue; }
        const Elf64_Shdr& in = sh[y.st_shndx];
        if (y.st_value + y.st_size > in.sh_size || (y.st_size == 0 && y.st_value > in.sh_size) ||
            (y.st_size == 0 && y.st_value == in.sh_size && ELF64_ST_TYPE(y.st_info) == STT_FUNC))
          say("symbol " + std::to_string(k) + " not inside its section");
        if (ELF64_ST_TYPE(y.st_info) == STT_FUNC && (in.sh_flags & SHF_EXECINSTR) && y.st_size == 0)
          say("function symbol " + std::to_string(k) + " of size 0");
      }
    }
    if (s.sh_type == SHT_REL || s.sh_type == SHT_RELA) {
      const size_t entry = s.sh_type == SHT_REL ? sizeof(Elf64_Rel) : sizeof(Elf64_Rela);
      for (size_t off = 0; off + entry <= s.sh_size; off += entry) {
        Elf64_Rel r;
        std::memcpy(&r, elf.data() + s.sh_offset + off, sizeof r);
        if (ELF64_R_SYM(r.r_info) >= n_syms) say("relocation naming symbol " + std::to_string(ELF64_R_SYM(r.r_info)));
        if (s.sh_info < sh.size() && r.r_offset >= sh[s.sh_info].sh_size) say("relocation past its section");
      }
    }
  }
  return bad;
}

uint64_t FunctionSize(const gpu::Cubin& c, const std::string& name) {
  for (const auto& f : c.functions)
    if (f.name == name) return f.size;
  return UINT64_MAX;
}

void ExpectSameRows(const std::vector<gpu::LineRow>& a, const std::vector<gpu::LineRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].address, b[i].address) << i;
    EXPECT_EQ(a[i].file, b[i].file) << i;
    EXPECT_EQ(a[i].line, b[i].line) << i;
  }
}

TEST(TrimCubin, KeepsSampledCodeAndLinesDropsTheRest) {
  const std::string whole = Slurp(kDir + "/stall_kernels.cubin");
  TrimmedCubin t = TrimCubin(whole, {kMath});
  ASSERT_EQ(t.error, "");
  EXPECT_EQ(t.functions_kept, 1u);
  EXPECT_EQ(t.functions_dropped, 1u);
  EXPECT_EQ(t.functions_missing, 0u);
  EXPECT_EQ(TrimCubin(whole, {kMath, "_Z5otherv"}).functions_missing, 1u);
  // mem_chain's code (0x880) and parameter bank (0x228) are gone.
  EXPECT_LE(t.bytes.size() + 0x880 + 0x228, whole.size());

  gpu::Cubin before = gpu::ReadCubin(whole), after = gpu::ReadCubin(t.bytes);
  EXPECT_EQ(FunctionSize(after, kMath), FunctionSize(before, kMath));
  // mem_chain (symbol 14) is renamed with its sections and has no code.
  EXPECT_EQ(FunctionSize(after, kMem), UINT64_MAX);
  EXPECT_EQ(FunctionSize(after, "$d14"), 16u);  // its stub: one sm_90 instruction
  EXPECT_EQ(Section(t.bytes, ".text." + kMath), Section(whole, ".text." + kMath));
  EXPECT_EQ(Section(t.bytes, ".text." + kMath).size(), 0x780u);
  EXPECT_EQ(Section(t.bytes, ".text." + kMem), "<none>");
  EXPECT_EQ(Section(t.bytes, ".text.$d14"), Section(whole, ".text." + kMem).substr(0, 16));
  EXPECT_EQ(Section(t.bytes, ".nv.constant0.$d14"), "");
  EXPECT_EQ(Section(t.bytes, ".nv.info.$d14"), "");
  EXPECT_EQ(Section(t.bytes, ".nv.info." + kMath), Section(whole, ".nv.info." + kMath));
  EXPECT_EQ(Section(t.bytes, ".nv.constant0." + kMath), Section(whole, ".nv.constant0." + kMath));
  for (const char* s : {".debug_line", ".nv_debug_line_sass", ".nv.info", ".nv.callgraph", ".symtab"})
    EXPECT_EQ(Section(t.bytes, s).size(), Section(whole, s).size()) << s;
  // Frame info: math_chain's CIE and FDE (0x68 bytes) as they were, mem_chain's gone; its
  // relocation (the FDE's initial location) still names math_chain at the same place.
  EXPECT_EQ(Section(t.bytes, ".debug_frame"), Section(whole, ".debug_frame").substr(0, 0x68));
  EXPECT_EQ(Section(t.bytes, ".rela.debug_frame").size(), sizeof(Elf64_Rela));
  Elf64_Rela rel;
  std::memcpy(&rel, Section(t.bytes, ".rela.debug_frame").data(), sizeof rel);
  EXPECT_EQ(rel.r_offset, 0x44u);
  EXPECT_EQ(ELF64_R_SYM(rel.r_info), 13u);  // _Z10math_chainPffi

  gpu::CubinLines lb = gpu::DecodeCubinLines(before), la = gpu::DecodeCubinLines(after);
  ASSERT_EQ(la.error, "");
  ASSERT_TRUE(la.functions.count(kMath));
  ExpectSameRows(la.functions.at(kMath), lb.functions.at(kMath));
  EXPECT_FALSE(la.functions.count(kMem));  // its rows stay, under its new name
  EXPECT_TRUE(la.functions.count("$d14"));
}

TEST(TrimCubin, ProgramHeadersFollowTheirSections) {
  const std::string whole = Slurp(kDir + "/stall_kernels.cubin");
  TrimmedCubin t = TrimCubin(whole, {kMem});
  ASSERT_EQ(t.error, "");
  Elf64_Ehdr eh;
  std::memcpy(&eh, t.bytes.data(), sizeof eh);
  ASSERT_EQ(eh.e_phnum, 5);
  bool code_segment = false;
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr p;
    std::memcpy(&p, t.bytes.data() + eh.e_phoff + i * sizeof p, sizeof p);
    ASSERT_LE(p.p_offset + p.p_filesz, t.bytes.size());
    if (p.p_flags & PF_X) {  // now math_chain's stub (16 bytes, aligned) and mem_chain's code
      code_segment = true;
      const std::string mem = Section(whole, ".text." + kMem), seg = t.bytes.substr(p.p_offset, p.p_filesz);
      EXPECT_EQ(seg.substr(0, 16), Section(t.bytes, ".text.$d13"));
      ASSERT_GE(seg.size(), mem.size());
      EXPECT_EQ(seg.substr(seg.size() - mem.size()), mem);
      EXPECT_LE(seg.size(), mem.size() + 128);
    }
  }
  EXPECT_TRUE(code_segment);
}

TEST(TrimCubin, EveryFunctionKeptLeavesTheSameSections) {
  for (const char* file : {"stall_kernels.cubin", "stall_kernels_nolines.cubin", "triton_softmax.cubin",
                           "throughput_kernel.cubin"}) {
    const std::string whole = Slurp(kDir + "/" + file);
    gpu::Cubin c = gpu::ReadCubin(whole);
    std::vector<std::string> all;
    for (const auto& f : c.functions) all.push_back(f.name);
    TrimmedCubin t = TrimCubin(whole, all);
    ASSERT_EQ(t.error, "") << file;
    EXPECT_EQ(t.functions_dropped, 0u) << file;
    EXPECT_EQ(t.functions_kept, all.size()) << file;
    gpu::Cubin again = gpu::ReadCubin(t.bytes);
    ASSERT_EQ(again.functions.size(), c.functions.size());
    for (size_t i = 0; i < c.functions.size(); ++i) {
      EXPECT_EQ(again.functions[i].size, c.functions[i].size);
      EXPECT_EQ(Section(t.bytes, ".text." + c.functions[i].name), Section(whole, ".text." + c.functions[i].name));
    }
    EXPECT_EQ(again.debug_line, c.debug_line) << file;
  }
}

// A non-inlined device function lives in its caller's code section (whole-program
// compilation): keeping the kernel keeps it, keeping the other kernel drops both.
TEST(TrimCubin, DeviceFunctionsGoWithTheirKernel) {
  const std::string whole = Slurp(kData + "/device_function.cubin");
  const std::string uses = "_Z11uses_helperPfi", other = "_Z12other_kernelPfi";
  TrimmedCubin k = TrimCubin(whole, {uses});
  ASSERT_EQ(k.error, "");
  EXPECT_EQ(k.functions_kept, 2u);  // the kernel and $_Z11uses_helperPfi$_Z6helperfi
  EXPECT_EQ(k.functions_dropped, 1u);
  EXPECT_EQ(Section(k.bytes, ".text." + uses), Section(whole, ".text." + uses));
  EXPECT_EQ(Section(k.bytes, ".text.$d13"), Section(whole, ".text." + other).substr(0, 16));
  gpu::Cubin c = gpu::ReadCubin(k.bytes);
  EXPECT_EQ(FunctionSize(c, "$_Z11uses_helperPfi$_Z6helperfi"), FunctionSize(gpu::ReadCubin(whole), "$_Z11uses_helperPfi$_Z6helperfi"));
  ExpectSameRows(gpu::DecodeCubinLines(c).functions.at(uses), gpu::DecodeCubinLines(gpu::ReadCubin(whole)).functions.at(uses));

  TrimmedCubin o = TrimCubin(whole, {other});
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.functions_kept, 1u);
  EXPECT_EQ(o.functions_dropped, 2u);
  // The kernel's stub, then its device function's (at 0xa0 in the whole section).
  const std::string code = Section(whole, ".text." + uses);
  EXPECT_EQ(Section(o.bytes, ".text.$d14"), code.substr(0, 16) + code.substr(0xa0, 16));
  EXPECT_EQ(Section(o.bytes, ".rela.text.$d14"), "");
  EXPECT_EQ(Section(o.bytes, ".text." + other), Section(whole, ".text." + other));
  // Frame info: other_kernel's CIE and FDE only; the helper's CIE named its kernel, gone too.
  EXPECT_EQ(Section(o.bytes, ".debug_frame"), Section(whole, ".debug_frame").substr(0, 0x68));
  EXPECT_EQ(Section(o.bytes, ".rela.debug_frame").size(), sizeof(Elf64_Rela));
  EXPECT_EQ(FunctionSize(gpu::ReadCubin(o.bytes), "$d7"), 16u);
  EXPECT_EQ(Symbol(o.bytes, "$d7").st_value, 16u);
  EXPECT_EQ(Symbol(o.bytes, "$d14").st_value, 0u);
}

// Every real cubin here, cut down to each one of its functions in turn: the result is as
// self-consistent as the original (nvdisasm 13 rejected empty code sections under function
// symbols), and LLVM's ELF reader reads it without a warning when it is installed.
TEST(TrimCubin, EveryTrimIsSelfConsistent) {
  const char* llvm_readelf = nullptr;
  for (const char* c : {"/usr/bin/llvm-readelf", "/usr/lib/llvm-14/bin/llvm-readelf"})
    if (access(c, X_OK) == 0) { llvm_readelf = c; break; }
  size_t trims = 0;
  for (const std::string& path : {kDir + "/stall_kernels.cubin", kDir + "/stall_kernels_nolines.cubin",
                                  kDir + "/triton_softmax.cubin", kDir + "/throughput_kernel.cubin",
                                  kData + "/device_function.cubin"}) {
    const std::string whole = Slurp(path);
    ASSERT_EQ(Inconsistencies(whole), "") << path;
    for (const auto& f : gpu::ReadCubin(whole).functions) {
      TrimmedCubin t = TrimCubin(whole, {f.name});
      ASSERT_EQ(t.error, "") << path << " " << f.name;
      EXPECT_EQ(Inconsistencies(t.bytes), "") << path << " keeping " << f.name;
      ++trims;
      if (!llvm_readelf) continue;
      char tmp[] = "/tmp/strata_trim_elf_XXXXXX";
      int fd = mkstemp(tmp);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(write(fd, t.bytes.data(), t.bytes.size()), ssize_t(t.bytes.size()));
      close(fd);
      std::string cmd = std::string(llvm_readelf) + " --all " + tmp + " 2>&1 >/dev/null";
      std::string diag;
      if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[512];
        while (fgets(buf, sizeof buf, p)) diag += buf;
        EXPECT_EQ(pclose(p), 0) << path << " keeping " << f.name;
      }
      EXPECT_EQ(diag, "") << path << " keeping " << f.name;
      if (access("/usr/bin/llvm-dwarfdump", X_OK) == 0) {
        // Every FDE points to a CIE that is there, and each kept function has its FDE.
        std::string frames;
        if (FILE* p = popen(("/usr/bin/llvm-dwarfdump --debug-frame " + std::string(tmp) + " 2>&1").c_str(), "r")) {
          char buf[512];
          while (fgets(buf, sizeof buf, p)) frames += buf;
          pclose(p);
        }
        std::set<std::string> cies;
        size_t fdes = 0;
        std::istringstream lines(frames);
        for (std::string line; std::getline(lines, line);) {
          if (line.size() > 8 && line.find(" CIE") != std::string::npos) cies.insert(line.substr(0, 8));
          size_t at = line.find(" FDE cie=");
          if (at == std::string::npos) continue;
          ++fdes;
          EXPECT_TRUE(cies.count(line.substr(at + 9, 8))) << path << " keeping " << f.name << ": " << line;
        }
        EXPECT_EQ(frames.find("error:"), std::string::npos) << frames;
        EXPECT_GE(fdes, t.functions_kept > 1 ? 1u : t.functions_kept) << path << " keeping " << f.name;
      }
      unlink(tmp);
    }
  }
  EXPECT_GE(trims, 6u);
}

TEST(TrimCubin, BadInputGivesOneLineErrors) {
  const std::string whole = Slurp(kDir + "/stall_kernels.cubin");
  EXPECT_EQ(TrimCubin("hello", {kMath}).error, "cubin: not an ELF file");
  EXPECT_EQ(TrimCubin(whole.substr(0, 40), {kMath}).error, "cubin: record past the end of the file");
  EXPECT_EQ(TrimCubin(whole.substr(0, 5000), {kMath}).error, "cubin: record past the end of the file");
  std::string x86 = whole;
  x86[18] = 62;  // e_machine = EM_X86_64
  EXPECT_EQ(TrimCubin(x86, {kMath}).error, "cubin: ELF machine is 62, not EM_CUDA (190)");
  TrimmedCubin none = TrimCubin(whole, {"_Z5otherv"});
  EXPECT_EQ(none.error, "cubin: none of the 1 sampled functions is in it");
  EXPECT_EQ(none.bytes, "");
}

// The real continuous-mode profile, its blobs replaced by the whole cubin or by the cubin
// trimmed to math_chain (no listing in either: the cubin's own line table is read).
std::vector<strata::core::FrameInfo> PcFrames(const std::string& cubin, std::vector<std::string>* kernels) {
  char path[] = "/tmp/strata_trim_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  {
    std::ofstream(path, std::ios::binary) << Slurp(kDir + "/stalls_continuous.strata");
  }
  std::vector<unsigned char> bytes = strata::core::detail::ReadProfileBytes(path);
  fmt::ProfileReader r = fmt::ProfileReader::Parse(bytes.data(), bytes.size());
  uint32_t module = UINT32_MAX;
  for (size_t i = 0; i < r.blob_count(); ++i)
    if (r.blob(i).kind == fmt::BlobKind::kCubin) module = r.blob(i).module;
  EXPECT_NE(module, UINT32_MAX);
  std::vector<unsigned char> section = fmt::SerializeBlobsSection({fmt::BlobView{module, fmt::BlobKind::kCubin, cubin}});
  strata::core::detail::RewriteProfile(path, {}, &section);
  auto p = strata::core::Profile::Open(path);
  unlink(path);
  strata::core::View v = p->BuildView(strata::core::ViewKind::kTopDown, 0);
  std::vector<strata::core::FrameInfo> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v.frame(i).kind != "pc") continue;
    out.push_back(v.frame(i));
    kernels->push_back(v.frame(size_t(v.parent[i])).name);
  }
  return out;
}

TEST(TrimCubin, RealProfileKeepsSampledInstructionsAndLines) {
  const std::string whole = Slurp(kDir + "/stall_kernels.cubin");
  std::vector<std::string> kernels_whole, kernels_trimmed;
  auto before = PcFrames(whole, &kernels_whole);
  auto after = PcFrames(TrimCubin(whole, {kMath}).bytes, &kernels_trimmed);
  ASSERT_EQ(before.size(), after.size());
  ASSERT_EQ(kernels_whole, kernels_trimmed);
  size_t math = 0, mem = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].address, before[i].address);
    EXPECT_EQ(after[i].name, before[i].name);
    if (kernels_whole[i].rfind("math_chain", 0) == 0) {
      ++math;
      EXPECT_NE(before[i].line, 0u) << before[i].name;
      EXPECT_EQ(after[i].file, before[i].file) << before[i].name;
      EXPECT_EQ(after[i].line, before[i].line) << before[i].name;
    } else if (kernels_whole[i].rfind("mem_chain", 0) == 0) {
      ++mem;
      EXPECT_NE(before[i].line, 0u) << before[i].name;
      EXPECT_EQ(after[i].line, 0u) << "mem_chain was not kept: " << before[i].name;
    }
  }
  EXPECT_GT(math, 3u);
  EXPECT_GT(mem, 3u);
}

}  // namespace
