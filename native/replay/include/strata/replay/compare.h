// Compares a region's snapped after-state with the replay's: bit-exact first, then, for the
// bytes that differ, as floating-point elements of a stated type against a tolerance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace strata::replay {

enum class ElementType { kF32, kF16, kBF16 };
// "" on success, else the one-line error naming the accepted values.
std::string ParseElementType(const std::string& name, ElementType* out);

struct RegionDiff {
  uint64_t bytes_differ = 0;
  uint64_t first_differ = 0;      // byte offset of the first differing byte
  uint64_t elements_differ = 0;   // elements of the type that differ
  double max_abs = 0, max_rel = 0;
  uint64_t beyond_tolerance = 0;  // differing elements outside atol + rtol * |expected| (NaN counts)
  bool within_tolerance = true;   // exact, or every differing element within the tolerance
};

RegionDiff CompareRegion(const void* expected, const void* got, size_t size, ElementType type, double rtol, double atol);

}  // namespace strata::replay
