// DWARF symbolization of native frames through LLVM's LLVMSymbolizer.
//
// Inlined frames are folded to the outermost (physical) function: the name is that function's
// and file:line is the line inside it (for a PC in inlined code: the line of the call that was
// inlined). The address given is the ELF virtual address inside the module, which is what
// LLVMSymbolizer expects for executables (PIE or not) and shared libraries alike. When there is
// no debug information, LLVM falls back to the ELF symbol table (name only).
#include <llvm/DebugInfo/Symbolize/Symbolize.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>

#include "symbolizer.h"

namespace strata::core::detail {

namespace {

bool Known(const std::string& s) {
  return !s.empty() && s != llvm::DILineInfo::BadString && s != "??";
}

class DwarfSymbolizer final : public Symbolizer {
 public:
  explicit DwarfSymbolizer(const std::vector<std::string>& debug_dirs) : symbolizer_(MakeOptions(debug_dirs)) {}

  SymbolInfo Symbolize(const std::string& module_path, uint64_t address) override {
    SymbolInfo out;
    llvm::object::SectionedAddress addr{address, llvm::object::SectionedAddress::UndefSection};
    auto inlined = symbolizer_.symbolizeInlinedCode(module_path, addr);
    if (!inlined) {
      llvm::consumeError(inlined.takeError());
      return out;
    }
    uint32_t frames = inlined->getNumberOfFrames();
    if (frames == 0) return out;
    const llvm::DILineInfo& outer = inlined->getFrame(frames - 1);
    if (Known(outer.FunctionName)) out.function = outer.FunctionName;
    if (Known(outer.FileName) && outer.Line > 0) {
      out.file = outer.FileName;
      out.line = outer.Line;
    }
    return out;
  }

  std::string BuildId(const std::string& module_path) override {
    auto binary = llvm::object::ObjectFile::createObjectFile(module_path);
    if (!binary) {
      llvm::consumeError(binary.takeError());
      return {};
    }
    // Profiles come from x86-64 and AArch64 Linux: 64-bit little-endian ELF.
    auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(binary->getBinary());
    if (!elf) return {};
    const auto& file = elf->getELFFile();
    auto phdrs = file.program_headers();
    if (!phdrs) {
      llvm::consumeError(phdrs.takeError());
      return {};
    }
    for (const auto& ph : *phdrs) {
      if (ph.p_type != llvm::ELF::PT_NOTE) continue;
      llvm::Error err = llvm::Error::success();
      for (const auto& note : file.notes(ph, err)) {
        if (note.getType() != llvm::ELF::NT_GNU_BUILD_ID || note.getName() != "GNU") continue;
        static const char kHex[] = "0123456789abcdef";
        std::string hex;
        for (uint8_t c : note.getDesc()) {
          hex += kHex[c >> 4];
          hex += kHex[c & 15];
        }
        llvm::consumeError(std::move(err));
        return hex;
      }
      llvm::consumeError(std::move(err));
    }
    return {};
  }

  std::string Demangle(std::string_view name) override {
    return llvm::demangle(std::string(name));
  }

 private:
  static llvm::symbolize::LLVMSymbolizer::Options MakeOptions(const std::vector<std::string>& debug_dirs) {
    llvm::symbolize::LLVMSymbolizer::Options o;
    o.DebugFileDirectory = debug_dirs;
    o.DebugFileDirectory.push_back("/usr/lib/debug");
    o.UseSymbolTable = true;
    o.Demangle = true;
    o.RelativeAddresses = false;
    o.PrintFunctions = llvm::symbolize::FunctionNameKind::LinkageName;
    o.PathStyle = llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath;
    return o;
  }
  llvm::symbolize::LLVMSymbolizer symbolizer_;
};

}  // namespace

std::unique_ptr<Symbolizer> MakeDefaultSymbolizer(const std::vector<std::string>& debug_dirs) {
  return std::make_unique<DwarfSymbolizer>(debug_dirs);
}

}  // namespace strata::core::detail
