// Sets meta entries of a profile in place (core::RewriteProfileMeta: atomic, the rest kept):
//   strata_stamp_meta FILE KEY=VALUE...
// How the rank-view fixtures and the synthetic many-rank folders get their rank meta.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/api.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: strata_stamp_meta FILE KEY=VALUE...\n");
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 2; i < argc; ++i) {
    const std::string kv = argv[i];
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "strata_stamp_meta: %s is not KEY=VALUE\n", argv[i]);
      return 2;
    }
    entries.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  try {
    strata::core::RewriteProfileMeta(argv[1], entries);
  } catch (const strata::core::Error& e) {
    std::fprintf(stderr, "strata_stamp_meta: %s\n", e.what());
    return 1;
  }
  return 0;
}
