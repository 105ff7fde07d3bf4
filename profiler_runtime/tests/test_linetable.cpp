// The location-table decoder against real code objects of the local CPython: a helper script
// dumps co_linetable and the expected co_lines() mapping for several functions.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "python/linetable.h"

namespace {

std::vector<uint8_t> FromHex(const std::string& h) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(uint8_t(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

void CheckWithPython(const char* python) {
  std::string out = std::string(::testing::TempDir()) + "/strata_linetable_" + std::to_string(getpid()) + ".txt";
  std::string cmd = std::string(python) + " " STRATA_TEST_SOURCE_DIR "/dump_linetable.py " + out;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  std::string row;
  int functions = 0, checked = 0;
  while (std::getline(in, row)) {
    std::istringstream ss(row);
    int firstlineno;
    std::string fmt, hex, pairs;
    ss >> fmt >> firstlineno >> hex >> pairs;
    std::vector<uint8_t> table = FromHex(hex);
    std::istringstream ps(pairs);
    std::string pair;
    while (std::getline(ps, pair, ',')) {
      int off = std::stoi(pair.substr(0, pair.find(':')));
      int line = std::stoi(pair.substr(pair.find(':') + 1));
      namespace py = strata::rt::python;
      int got = fmt == "loc"     ? py::LineForInstruction(table.data(), table.size(), firstlineno, off)
                : fmt == "lt310" ? py::LineForAddress310(table.data(), table.size(), firstlineno, off)
                                 : py::LineForAddress39(table.data(), table.size(), firstlineno, off);
      EXPECT_EQ(got, line) << python << " " << fmt << " function " << functions << " offset " << off;
      ++checked;
    }
    ++functions;
  }
  std::remove(out.c_str());
  EXPECT_EQ(functions, 4);
  EXPECT_GT(checked, 100);
}

}  // namespace

TEST(LineTable, MatchesCoLinesSystemPython311) { CheckWithPython("/usr/bin/python3"); }

// Every pyenv CPython the build found (3.9: co_lnotab, 3.10: its co_linetable, 3.11+: PEP 626).
TEST(LineTable, MatchesEveryPyenvPython) {
  std::stringstream ss(STRATA_TEST_PYTHONS);
  std::string item;
  int versions = 0;
  while (std::getline(ss, item, ',')) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    CheckWithPython(item.substr(eq + 1).c_str());
    ++versions;
  }
  if (!versions) GTEST_SKIP() << "no pyenv CPython found";
  printf("checked %d CPython versions: %s\n", versions, STRATA_TEST_PYTHONS);
}

TEST(LineTable, OutOfRangeAndNegative) {
  const uint8_t table[] = {0x80, 0x00};  // one short-form entry, 1 code unit, same line
  EXPECT_EQ(strata::rt::python::LineForInstruction(table, sizeof(table), 42, 0), 42);
  EXPECT_EQ(strata::rt::python::LineForInstruction(table, sizeof(table), 42, 5), -1);
  EXPECT_EQ(strata::rt::python::LineForInstruction(table, sizeof(table), 42, -1), 42);
  EXPECT_EQ(strata::rt::python::LineForInstruction(table, 0, 42, 0), -1);
}
