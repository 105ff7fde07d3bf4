// Cubin ELF parsing through LLVM's Object library (ELF64LE; CUDA has no LLVM target, so only
// the generic ELF layer is used: sections, symbols, RELA records).
#include "cubin_reader.h"

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>

#include "strata/core/api.h"

namespace strata::core::gpu {

namespace {

constexpr uint16_t kEmCuda = 190;  // EM_CUDA

[[noreturn]] void Fail(const std::string& what) { throw Error("cubin: " + what); }

std::string Take(llvm::Error e) { return llvm::toString(std::move(e)); }

// LLVM error texts can span lines; a one-line error is the project's rule.
std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// .nv.info.<name> records: u8 format, u8 attribute, then for format EIFMT_SVAL (4) a u16 size
// and that many bytes, else a u16 value. EIATTR_MAX_THREADS (5) holds u32 x, y, z.
uint32_t MaxThreads(llvm::StringRef info) {
  constexpr uint8_t kSval = 4, kMaxThreads = 5;
  size_t at = 0;
  while (at + 4 <= info.size()) {
    const uint8_t format = uint8_t(info[at]), attribute = uint8_t(info[at + 1]);
    const uint16_t size = uint16_t(uint8_t(info[at + 2]) | uint8_t(info[at + 3]) << 8);
    at += 4;
    if (format != kSval) continue;
    if (attribute == kMaxThreads && size >= 12 && at + 12 <= info.size()) {
      uint32_t d[3];
      for (int k = 0; k < 3; ++k)
        d[k] = uint32_t(uint8_t(info[at + 4 * k])) | uint32_t(uint8_t(info[at + 4 * k + 1])) << 8 |
               uint32_t(uint8_t(info[at + 4 * k + 2])) << 16 | uint32_t(uint8_t(info[at + 4 * k + 3])) << 24;
      return d[0] * d[1] * d[2];
    }
    at += size;
  }
  return 0;
}

}  // namespace

Cubin ReadCubin(std::string_view bytes) {
  if (bytes.size() < 4 || bytes.substr(0, 4) != "\x7f" "ELF") Fail("not an ELF file");
  // LLVM's ELF layer reads fields in place and needs an aligned buffer: copy.
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(bytes.data(), bytes.size()), "cubin");
  auto object = llvm::object::ObjectFile::createELFObjectFile(buffer->getMemBufferRef());
  if (!object) Fail(OneLine(Take(object.takeError())));
  auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(object->get());
  if (!elf) Fail("not a 64-bit little-endian ELF file");
  const auto& file = elf->getELFFile();
  if (file.getHeader().e_machine != kEmCuda)
    Fail("ELF machine is " + std::to_string(file.getHeader().e_machine) + ", not EM_CUDA (190)");

  Cubin out;
  for (const llvm::object::ELFSymbolRef sym : elf->symbols()) {
    if (sym.getELFType() != llvm::ELF::STT_FUNC) continue;
    auto name = sym.getName();
    if (!name) Fail(OneLine(Take(name.takeError())));
    auto section = sym.getSection();
    if (!section) Fail(OneLine(Take(section.takeError())));
    if (*section == elf->section_end()) continue;  // an undefined (external) function
    CubinFunction f{name->str(), sym.getSize(), "", 0, 0};
    auto contents = (*section)->getContents();
    auto value = sym.getValue();
    if (contents && value && *value + f.size <= contents->size()) f.code = contents->substr(*value, f.size).str();
    else if (!contents) llvm::consumeError(contents.takeError());
    if (!value) llvm::consumeError(value.takeError());
    out.functions.push_back(std::move(f));
  }

  auto function_named = [&out](llvm::StringRef n) -> CubinFunction* {
    for (CubinFunction& f : out.functions)
      if (n == f.name) return &f;
    return nullptr;
  };
  for (const llvm::object::SectionRef& section : elf->sections()) {
    auto name = section.getName();
    if (!name) Fail(OneLine(Take(name.takeError())));
    if (name->startswith(".nv.shared.")) {
      if (CubinFunction* f = function_named(name->drop_front(11))) f->static_shared_bytes = section.getSize();
    } else if (name->startswith(".nv.info.")) {
      auto contents = section.getContents();
      if (!contents) Fail(OneLine(Take(contents.takeError())));
      if (CubinFunction* f = function_named(name->drop_front(9))) f->max_threads = MaxThreads(*contents);
    } else if (*name == ".debug_line") {
      auto contents = section.getContents();
      if (!contents) Fail(OneLine(Take(contents.takeError())));
      out.debug_line = contents->str();
    } else if (*name == ".rela.debug_line") {
      // The RELA section's records name, in file order, the function each line sequence
      // (its DW_LNE_set_address) belongs to.
      for (const llvm::object::RelocationRef& rel : section.relocations()) {
        auto sym = rel.getSymbol();
        std::string symbol;
        if (sym != elf->symbol_end()) {
          auto sym_name = sym->getName();
          if (!sym_name) Fail(OneLine(Take(sym_name.takeError())));
          symbol = sym_name->str();
        }
        out.line_relocations.push_back(CubinLineRelocation{rel.getOffset(), std::move(symbol)});
      }
    }
  }
  std::stable_sort(out.line_relocations.begin(), out.line_relocations.end(),
                   [](const auto& a, const auto& b) { return a.offset < b.offset; });
  return out;
}

}  // namespace strata::core::gpu
