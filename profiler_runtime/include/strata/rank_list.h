// A list of ranks ("0,2-3"): what `strata record --ranks` (native/cli) checks and the runtime
// reads from STRATA_RANKS to profile only the listed ranks. Header-only so both agree.
#pragma once

#include <cstdlib>
#include <string>

namespace strata::rank_list {

// Environment: the list; a process whose rank is not in it stays unprofiled.
inline constexpr const char* kRanksEnv = "STRATA_RANKS";

namespace detail {
inline bool Number(const std::string& s, long* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) if (c < '0' || c > '9') return false;
  *out = std::atol(s.c_str());
  return true;
}
// Calls on(lo, hi) per item; false with *why at the first bad item.
template <typename F>
bool Walk(const std::string& text, std::string* why, F on) {
  if (text.empty()) {
    if (why) *why = "the list of ranks is empty";
    return false;
  }
  size_t pos = 0;
  for (;;) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    long lo = 0, hi = 0;
    size_t dash = item.find('-');
    bool ok = dash == std::string::npos ? Number(item, &lo) && (hi = lo, true)
                                        : Number(item.substr(0, dash), &lo) &&
                                              Number(item.substr(dash + 1), &hi) && lo <= hi;
    if (!ok) {
      if (why) *why = "'" + item + "' is not a rank or a range of ranks (want e.g. 0,2-3)";
      return false;
    }
    on(lo, hi);
    if (comma == std::string::npos) return true;
    pos = comma + 1;
  }
}
}  // namespace detail

// True when `text` is a valid list; else *why says which item is bad.
inline bool Parse(const std::string& text, std::string* why) {
  return detail::Walk(text, why, [](long, long) {});
}

// True when `rank` is listed (a list that does not parse lists nothing).
inline bool Listed(const std::string& text, long rank) {
  bool in = false;
  if (!detail::Walk(text, nullptr, [&](long lo, long hi) { in = in || (rank >= lo && rank <= hi); })) return false;
  return in;
}

}  // namespace strata::rank_list
