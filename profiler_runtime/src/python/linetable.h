// Decoders for the location tables of CPython 3.9 (co_lnotab), 3.10 (co_linetable) and 3.11+
// (PEP 626 co_linetable). Pure memory reading with no allocation: they run inside the SIGPROF
// handler. Each returns -1 when the table says "no line" or the offset lies beyond the table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace strata::rt::python {

// 3.11+: line executing at instruction `unit` (offset in 2-byte code units from _PyCode_CODE).
int LineForInstruction(const uint8_t* table, size_t size, int firstlineno, int unit);

// 3.10: line at byte offset `addr` into co_code (f_lasti * 2), as PyCode_Addr2Line.
int LineForAddress310(const uint8_t* table, size_t size, int firstlineno, int addr);

// 3.9: line at byte offset `addr` (f_lasti) from co_lnotab, as PyCode_Addr2Line.
int LineForAddress39(const uint8_t* table, size_t size, int firstlineno, int addr);

}  // namespace strata::rt::python
