// What a region's name says the lane is doing (the naming convention of docs/regions.md
// "Overlap analysis"): markers carry ids only, so the names are what the analysis has.
#include <algorithm>
#include <cctype>

#include "strata/core/overlap.h"

namespace strata::core::overlap {

const char* ActivityName(Activity a) {
  switch (a) {
    case Activity::kCompute: return "compute";
    case Activity::kLoad: return "load";
    case Activity::kWait: return "wait";
    case Activity::kIdle: return "idle";
  }
  return "compute";
}

Activity ClassifyRegionName(const std::string& name) {
  std::string s(name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (s.rfind("wait", 0) == 0) return Activity::kWait;
  // Words, not substrings: "softmax" holds "tma".
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && !std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && std::isalnum(static_cast<unsigned char>(s[j]))) ++j;
    const std::string word = s.substr(i, j - i);
    for (const char* w : {"load", "store", "copy", "tma", "issue", "fetch", "prefetch", "cp"})
      if (word.rfind(w, 0) == 0) return Activity::kLoad;
    i = j;
  }
  return Activity::kCompute;
}

}  // namespace strata::core::overlap
