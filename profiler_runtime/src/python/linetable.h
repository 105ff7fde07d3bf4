// Decoder for the PEP 626 location table (co_linetable) of CPython 3.11 and 3.12.
// Pure memory reading with no allocation: it runs inside the SIGPROF handler.
#pragma once

#include <cstddef>
#include <cstdint>

namespace strata::rt::python {

// Line executing at instruction `unit` (offset in 2-byte code units from _PyCode_CODE(code)).
// Returns -1 when the table says "no location" or `unit` lies beyond the table.
int LineForInstruction(const uint8_t* table, size_t size, int firstlineno, int unit);

}  // namespace strata::rt::python
