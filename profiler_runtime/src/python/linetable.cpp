#include "python/linetable.h"

namespace strata::rt::python {
namespace {

// Varints in the table: 6 data bits per byte, bit 6 = continuation (see Objects/locations.md).
inline bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint32_t* out) {
  uint32_t v = 0;
  int shift = 0;
  while (p < end) {
    uint8_t b = *p++;
    v |= uint32_t(b & 63) << shift;
    shift += 6;
    if (!(b & 64)) { *out = v; return true; }
    if (shift > 30) return false;
  }
  return false;
}

inline bool ReadSvarint(const uint8_t*& p, const uint8_t* end, int32_t* out) {
  uint32_t u;
  if (!ReadVarint(p, end, &u)) return false;
  *out = (u & 1) ? -int32_t(u >> 1) : int32_t(u >> 1);
  return true;
}

}  // namespace

int LineForInstruction(const uint8_t* table, size_t size, int firstlineno, int unit) {
  if (unit < 0) return firstlineno;  // as PyCode_Addr2Line does for lasti < 0
  const uint8_t* p = table;
  const uint8_t* end = table + size;
  int line = firstlineno;
  int addr = 0;
  while (p < end) {
    uint8_t first = *p++;
    if (!(first & 0x80)) return -1;  // every entry starts with the high bit set
    int code = (first >> 3) & 15;
    int len = (first & 7) + 1;
    bool none = false;
    if (code == 15) {                 // no location
      none = true;
    } else if (code == 14) {          // long form: line delta, end line, col, end col
      int32_t d; uint32_t skip;
      if (!ReadSvarint(p, end, &d)) return -1;
      line += d;
      for (int i = 0; i < 3; ++i) if (!ReadVarint(p, end, &skip)) return -1;
    } else if (code == 13) {          // no column: line delta only
      int32_t d;
      if (!ReadSvarint(p, end, &d)) return -1;
      line += d;
    } else if (code >= 10) {          // one-line forms: delta = code - 10, two column bytes
      line += code - 10;
      p += 2;
    } else {                          // short forms: same line, one column byte
      p += 1;
    }
    if (unit < addr + len) return none ? -1 : line;
    addr += len;
  }
  return -1;
}

}  // namespace strata::rt::python

namespace strata::rt::python {

int LineForAddress310(const uint8_t* table, size_t size, int firstlineno, int addr) {
  if (addr < 0) return firstlineno;
  // (byte delta, line delta) ranges; -128 = the range has no line. Empty ranges only move the
  // line (CPython skips them the same way).
  int line = firstlineno, end = 0;
  for (size_t i = 0; i + 1 < size; i += 2) {
    int start = end;
    end += table[i];
    int8_t d = int8_t(table[i + 1]);
    int cur = -1;
    if (d != -128) { line += d; cur = line; }
    if (end > start && addr < end) return cur;
  }
  return -1;
}

int LineForAddress39(const uint8_t* table, size_t size, int firstlineno, int addr) {
  int line = firstlineno, a = 0;
  for (size_t i = 0; i + 1 < size; i += 2) {
    a += table[i];
    if (a > addr) break;
    line += int8_t(table[i + 1]);
  }
  return line;
}

}  // namespace strata::rt::python
