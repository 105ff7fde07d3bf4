// One listed SASS instruction's parts: guard, opcode, the registers it writes and reads, its
// branch label. Which operands an opcode writes follows its class (stores, branches, barriers
// and async copies write none; compares write two predicates; the rest write their first).
#pragma once

#include <string>

#include "strata/core/sass_deps.h"

namespace strata::core::sass {

// Fills opcode, base, guard, defs, uses and branch_label of `i` from i.text.
void ParseOperands(SassInstr& i);

// Width in bytes an opcode's ".32/.64/.128" (or .U8/.S16...) suffix names; 4 by default.
uint32_t AccessBytes(const std::string& opcode);

bool IsBranch(const std::string& base);
bool IsAsyncCopy(const std::string& base);  // LDGSTS, UTMALDG, UBLKCP
bool IsVariableLatencyLoad(const std::string& base);  // global/local/generic memory reads

}  // namespace strata::core::sass
