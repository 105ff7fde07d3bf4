#include "module_locator.h"

#include <sys/stat.h>

namespace strata::core::detail {

namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string LocateModule(const std::string& recorded_path, const std::string& build_id,
                         const std::vector<std::string>& symbol_paths, Symbolizer& symbolizer) {
  auto matches = [&](const std::string& path) {
    return IsRegularFile(path) && symbolizer.BuildId(path) == build_id;
  };
  if (build_id.empty()) return IsRegularFile(recorded_path) ? recorded_path : std::string();
  if (matches(recorded_path)) return recorded_path;
  const std::string name = BaseName(recorded_path);
  std::vector<std::string> dirs = symbol_paths;
  dirs.push_back("/usr/lib/debug");
  for (const auto& dir : dirs) {
    if (dir.empty()) continue;
    std::string base = dir.back() == '/' ? dir : dir + "/";
    if (!name.empty() && matches(base + name)) return base + name;
    if (build_id.size() > 2) {
      std::string store = base + ".build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug";
      if (matches(store)) return store;
    }
  }
  return {};
}

}  // namespace strata::core::detail
