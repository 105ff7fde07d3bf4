// Region names files (strata/core/names_file.h): the sidecar's JSON is read here, in the core
// (the decoder has no JSON); the table inside it, or the whole file, by ParseNameTable.
#include "strata/core/names_file.h"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "strata/core/api.h"

namespace strata::core::regions {

NamesFile ParseNamesFile(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return {ParseNameTable(text), 0};
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's message names its own exception id first; the user needs only why.
    std::string what = e.what();
    const size_t bracket = what.find("] ");
    throw Error("not valid JSON (" + (bracket == std::string::npos ? what : what.substr(bracket + 2)) + ")");
  }
  if (!j.is_object() || !j.contains("names") || !j["names"].is_string())
    throw Error("a JSON names file needs a \"names\" string (\"1=load;2=mma\")");
  NamesFile out{ParseNameTable(j["names"].get<std::string>()), 0};
  for (const char* key : {"clock_cycles_per_ns", "cycles_per_ns"}) {
    if (j.contains(key) && j[key].is_number() && j[key].get<double>() > 0) {
      out.cycles_per_ns = j[key].get<double>();
      break;
    }
  }
  return out;
}

std::optional<NamesFile> ReadNamesFile(const std::string& path, std::string* why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *why = "cannot read the names file";
    return std::nullopt;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return ParseNamesFile(text);
  } catch (const Error& e) {
    *why = e.what();
    return std::nullopt;
  }
}

}  // namespace strata::core::regions
