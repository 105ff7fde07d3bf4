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
    std::string hex, pairs;
    ss >> firstlineno >> hex >> pairs;
    std::vector<uint8_t> table = FromHex(hex);
    std::istringstream ps(pairs);
    std::string pair;
    while (std::getline(ps, pair, ',')) {
      int unit = std::stoi(pair.substr(0, pair.find(':')));
      int line = std::stoi(pair.substr(pair.find(':') + 1));
      EXPECT_EQ(strata::rt::python::LineForInstruction(table.data(), table.size(), firstlineno, unit), line)
          << "function " << functions << " unit " << unit;
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

TEST(LineTable, OutOfRangeAndNegative) {
  const uint8_t table[] = {0x80, 0x00};  // one short-form entry, 1 code unit, same line
  EXPECT_EQ(strata::rt::python::LineForInstruction(table, sizeof(table), 42, 0), 42);
  EXPECT_EQ(strata::rt::python::LineForInstruction(table, sizeof(table), 42, 5), -1);
  EXPECT_EQ(strata::rt::python::LineForInstruction(table, sizeof(table), 42, -1), 42);
  EXPECT_EQ(strata::rt::python::LineForInstruction(table, 0, 42, 0), -1);
}
