#include "strata/replay/compare.h"

#include <cmath>
#include <cstring>

namespace strata::replay {
namespace {

float HalfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0) {
    float v = std::ldexp(float(man), -24);
    return sign ? -v : v;
  }
  uint32_t bits = exp == 31 ? sign | 0x7f800000u | (man << 13) : sign | ((exp + 112) << 23) | (man << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float BfloatToFloat(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double Element(const uint8_t* p, ElementType t) {
  if (t == ElementType::kF32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return t == ElementType::kF16 ? HalfToFloat(h) : BfloatToFloat(h);
}

}  // namespace

std::string ParseElementType(const std::string& name, ElementType* out) {
  if (name == "f32") *out = ElementType::kF32;
  else if (name == "f16") *out = ElementType::kF16;
  else if (name == "bf16") *out = ElementType::kBF16;
  else return "--dtype " + name + ": must be f32, f16 or bf16";
  return "";
}

RegionDiff CompareRegion(const void* expected, const void* got, size_t size, ElementType type, double rtol, double atol) {
  RegionDiff d;
  const auto* e = static_cast<const uint8_t*>(expected);
  const auto* g = static_cast<const uint8_t*>(got);
  if (std::memcmp(e, g, size) == 0) return d;
  const size_t width = type == ElementType::kF32 ? 4 : 2;
  bool first = true;
  for (size_t at = 0; at < size; at += width) {
    size_t n = at + width <= size ? width : size - at;
    if (std::memcmp(e + at, g + at, n) == 0) continue;
    for (size_t i = 0; i < n; ++i) {
      if (e[at + i] == g[at + i]) continue;
      ++d.bytes_differ;
      if (first) d.first_differ = at + i, first = false;
    }
    ++d.elements_differ;
    if (n < width) {  // a ragged tail: not an element
      ++d.beyond_tolerance;
      continue;
    }
    double x = Element(e + at, type), y = Element(g + at, type);
    if (std::isnan(x) || std::isnan(y)) {
      ++d.beyond_tolerance;
      continue;
    }
    double abs = std::fabs(x - y), rel = x != 0 ? abs / std::fabs(x) : (abs ? INFINITY : 0);
    if (abs > d.max_abs) d.max_abs = abs;
    if (rel > d.max_rel) d.max_rel = rel;
    if (!(abs <= atol + rtol * std::fabs(x))) ++d.beyond_tolerance;
  }
  d.within_tolerance = d.beyond_tolerance == 0 && (rtol > 0 || atol > 0);
  return d;
}

}  // namespace strata::replay
