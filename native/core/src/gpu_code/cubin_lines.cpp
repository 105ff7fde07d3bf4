// .debug_line decoding through LLVM's DWARFDebugLine. NVIDIA's line-table prologue carries
// extra data after the file table (LLVM reports "unknown data in line table prologue" and
// skips it: a recoverable warning, ignored here); the line program itself is standard DWARF v2.
#include "cubin_lines.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDataExtractor.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLine.h>
#include <llvm/Support/Error.h>

#include <algorithm>

namespace strata::core::gpu {

const LineRow* CubinLines::Find(const std::string& function, uint64_t pc) const {
  auto it = functions.find(function);
  if (it == functions.end()) return nullptr;
  const auto& rows = it->second;
  // The last row at or before pc (of several at one address: the last, the innermost).
  auto after = std::upper_bound(rows.begin(), rows.end(), pc,
                                [](uint64_t a, const LineRow& r) { return a < r.address; });
  if (after == rows.begin()) return nullptr;
  const LineRow* row = &*(after - 1);
  return row->line == 0 ? nullptr : row;
}

CubinLines DecodeCubinLines(const Cubin& cubin) {
  CubinLines out;
  if (cubin.debug_line.empty()) return out;

  // Only the line table is decoded: an empty section map is enough for the context, which the
  // parser consults for DWARF v5 string forms only.
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> no_sections;
  std::unique_ptr<llvm::DWARFContext> context =
      llvm::DWARFContext::create(no_sections, /*AddrSize=*/8, /*isLittleEndian=*/true);
  // The relocations are not applied: they only name the function of each sequence (addend 0),
  // and the addresses in the table are already function-relative.
  llvm::DWARFDataExtractor data(llvm::StringRef(cubin.debug_line), /*IsLittleEndian=*/true,
                                /*AddressSize=*/8);
  std::vector<std::vector<LineRow>> sequences;
  uint64_t offset = 0;
  while (data.isValidOffset(offset)) {
    const uint64_t table_start = offset;
    llvm::DWARFDebugLine::LineTable table;
    llvm::Error err = table.parse(data, &offset, *context, nullptr,
                                  [](llvm::Error e) { llvm::consumeError(std::move(e)); });
    if (err) {
      out.error = "cubin line table at offset " + std::to_string(table_start) + ": " +
                  llvm::toString(std::move(err));
      std::replace(out.error.begin(), out.error.end(), '\n', ' ');
      out.functions.clear();
      return out;
    }
    // Split Rows at end_sequence rows, in file order: Sequences is sorted by address, and
    // every function's sequence starts at 0, so only file order matches the relocations.
    std::vector<LineRow> current;
    for (const auto& row : table.Rows) {
      LineRow r;
      r.address = row.Address.Address;
      if (!row.EndSequence) {
        r.line = row.Line;
        std::string file;
        if (table.getFileNameByIndex(row.File, "", llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, file))
          r.file = std::move(file);
      }
      current.push_back(std::move(r));
      if (row.EndSequence) sequences.push_back(std::move(current)), current.clear();
    }
    if (offset <= table_start) break;  // no progress: do not loop
  }
  if (sequences.size() != cubin.line_relocations.size()) {
    out.error = "cubin line table has " + std::to_string(sequences.size()) + " sequences but " +
                std::to_string(cubin.line_relocations.size()) +
                " relocations name their functions; lines not used";
    return out;
  }
  for (size_t k = 0; k < sequences.size(); ++k) {
    auto& rows = sequences[k];
    // Addresses within a sequence never decrease; stable order keeps the innermost row last.
    std::stable_sort(rows.begin(), rows.end(), [](const LineRow& a, const LineRow& b) { return a.address < b.address; });
    out.functions[cubin.line_relocations[k].symbol] = std::move(rows);
  }
  return out;
}

}  // namespace strata::core::gpu
