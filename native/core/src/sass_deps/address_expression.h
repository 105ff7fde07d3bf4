// Which memory operands name the same address within one iteration: an operand's value as an
// expression of the instructions that computed it (opcode and immediates, the expressions of
// their register inputs through the graph's register edges), hashed. A value carried from an
// earlier iteration or read before any writer is an opaque input, the same for every reader of
// it. Two mbarrier operands with equal expressions are the same barrier.
#pragma once

#include <cstdint>
#include <map>

#include "strata/core/sass_deps.h"

namespace strata::core::sass {

class AddressExpressions {
 public:
  explicit AddressExpressions(const SassDependencyGraph& g);
  // The expression of instruction i's memory operand (0 when it has none).
  uint64_t Of(size_t i) const;

 private:
  uint64_t Value(size_t writer, int depth) const;  // what `writer` computes
  uint64_t Input(size_t reader, const SassReg& r, int depth) const;
  const SassDependencyGraph& g_;
  std::map<std::pair<size_t, SassReg>, std::pair<size_t, bool>> writer_;  // (reader, reg) -> (writer, carried)
  mutable std::map<size_t, uint64_t> memo_;
};

}  // namespace strata::core::sass
