// The CPython interpreters the build found for the tests (STRATA_TEST_PYTHONS: "3.9=/path,...";
// a missing version is absent, and the tests that want it say so).
#pragma once

#include <map>
#include <sstream>
#include <string>

namespace strata::rt::test {

// "3.9" -> interpreter path.
inline std::map<std::string, std::string> TestPythons() {
  std::map<std::string, std::string> out;
  std::stringstream ss(STRATA_TEST_PYTHONS);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t eq = item.find('=');
    if (eq != std::string::npos) out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

}  // namespace strata::rt::test
