#include "control_bits.h"

namespace strata::core::sass {

SassControl DecodeControlBits(std::string_view bytes) {
  uint64_t high = 0;  // bits 64-127
  for (int k = 7; k >= 0; --k) high = high << 8 | uint8_t(bytes[8 + size_t(k)]);
  const uint32_t code = uint32_t(high >> 41) & 0x1FFFFF;
  SassControl c;
  c.stall = uint8_t(code & 0xF);
  c.yield = ((code >> 4) & 1) == 0;
  const uint8_t write = (code >> 5) & 7, read = (code >> 8) & 7;
  c.write_scoreboard = write == 7 ? int8_t(-1) : int8_t(write);
  c.read_scoreboard = read == 7 ? int8_t(-1) : int8_t(read);
  c.wait_mask = uint8_t((code >> 11) & 0x3F);
  c.reuse = uint8_t(code >> 17);
  return c;
}

}  // namespace strata::core::sass
