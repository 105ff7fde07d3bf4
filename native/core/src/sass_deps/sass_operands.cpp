#include "sass_operands.h"

#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>

namespace strata::core::sass {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Splits on top-level commas (not inside [] or {}).
std::vector<std::string> SplitOperands(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!Trim(cur).empty()) out.push_back(Trim(cur));
  return out;
}

// Registers named in one operand: "R2.64" is R2 and R3; a vector load's or store's data operand
// names its first register, the opcode's width gives the count (`width_regs`).
void RegistersIn(const std::string& op, std::vector<SassReg>& out, uint32_t width_regs) {
  for (size_t i = 0; i < op.size();) {
    bool word_start = i == 0 || !(std::isalnum(uint8_t(op[i - 1])) || op[i - 1] == '_' || op[i - 1] == '.');
    SassRegFile file;
    size_t n = 0;
    if (word_start && op.compare(i, 2, "UR") == 0 && i + 2 < op.size() && std::isdigit(uint8_t(op[i + 2]))) file = SassRegFile::kUR, n = 2;
    else if (word_start && op.compare(i, 2, "UP") == 0 && i + 2 < op.size() && std::isdigit(uint8_t(op[i + 2]))) file = SassRegFile::kUP, n = 2;
    else if (word_start && op[i] == 'R' && i + 1 < op.size() && std::isdigit(uint8_t(op[i + 1]))) file = SassRegFile::kR, n = 1;
    else if (word_start && op[i] == 'P' && i + 1 < op.size() && std::isdigit(uint8_t(op[i + 1]))) file = SassRegFile::kP, n = 1;
    else { ++i; continue; }
    size_t j = i + n;
    uint32_t idx = 0;
    while (j < op.size() && std::isdigit(uint8_t(op[j]))) idx = idx * 10 + uint32_t(op[j++] - '0');
    if (j < op.size() && (std::isalnum(uint8_t(op[j])) || op[j] == '_')) { i = j; continue; }  // e.g. "R2X" is no register
    uint32_t count = 1;
    if (op.compare(j, 3, ".64") == 0) count = 2;
    else if (file == SassRegFile::kR || file == SassRegFile::kUR) count = width_regs;
    for (uint32_t k = 0; k < count; ++k) out.push_back(SassReg{file, uint16_t(idx + k)});
    i = j;
  }
}

const std::set<std::string>& NoDestination() {
  static const std::set<std::string> s = {
      "ST", "STG", "STS", "STL", "STSM", "RED", "REDG", "REDS", "REDUX", "LDGSTS", "BRA", "BRX", "JMP", "JMX", "CALL", "RET",
      "EXIT", "BAR", "BSYNC", "BSSY", "WARPSYNC", "DEPBAR", "LDGDEPBAR", "MEMBAR", "FENCE", "NOP", "YIELD", "ERRBAR", "CCTL",
      "UTMALDG", "UTMASTG", "UTMAPF", "UTMACCTL", "UBLKCP", "UBLKPF", "UBLKRED", "ARRIVES", "BREAK", "BPT", "KILL", "NANOSLEEP",
      "WARPGROUP", "UCGABAR_ARV", "UCGABAR_WAIT", "CGAERRBAR", "ACQBULK", "PREEXIT", "BMOV", "ELECT"};
  return s;
}

// "[R2.64+UR4+0x10]" (the last bracket group of `op`) into base, index and immediate.
std::optional<SassMemoryOperand> ParseAddress(const std::string& op, const std::string& space, uint32_t bytes) {
  size_t open = op.rfind('['), close = op.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  SassMemoryOperand m;
  m.space = space;
  m.bytes = bytes;
  const std::string inner = op.substr(open + 1, close - open - 1);
  auto take = [&](std::string t, bool negative) {
    t = Trim(t);
    if (t.empty()) return;
    if (std::isdigit(uint8_t(t[0])) || t[0] == '-') {
      m.imm += (negative ? -1 : 1) * int64_t(std::strtoll(t.c_str(), nullptr, 0));
      return;
    }
    std::vector<SassReg> r;
    RegistersIn(t, r, 1);
    if (r.empty()) return;  // RZ, URZ
    if (!m.base) {
      m.base = r[0];
      m.wide = t.find(".64") != std::string::npos;
    } else {
      m.index = r[0];
    }
  };
  // Terms joined by '+' ("R104+-0x100": a negative immediate); a term may itself end in "-imm".
  size_t start = 0;
  for (size_t k = 0; k <= inner.size(); ++k) {
    if (k < inner.size() && inner[k] != '+') continue;
    std::string t = Trim(inner.substr(start, k - start));
    start = k + 1;
    size_t minus = t.find('-', 1);
    if (!t.empty() && t[0] != '-' && minus != std::string::npos) {
      take(t.substr(0, minus), false);
      take(t.substr(minus + 1), true);
    } else if (!t.empty() && t[0] == '-') {
      take(t.substr(1), true);
    } else {
      take(t, false);
    }
  }
  return m;
}

}  // namespace

uint32_t AccessBytes(const std::string& opcode) {
  if (opcode.find(".128") != std::string::npos) return 16;
  if (opcode.find(".64") != std::string::npos) return 8;
  if (opcode.find(".U8") != std::string::npos || opcode.find(".S8") != std::string::npos) return 1;
  if (opcode.find(".U16") != std::string::npos || opcode.find(".S16") != std::string::npos) return 2;
  return 4;
}

bool IsBranch(const std::string& b) { return b == "BRA" || b == "BRX" || b == "JMP" || b == "JMX"; }
bool IsAsyncCopy(const std::string& b) { return b == "LDGSTS" || b == "UTMALDG" || b == "UBLKCP"; }
bool IsVariableLatencyLoad(const std::string& b) { return b == "LDG" || b == "LD" || b == "LDL" || b == "ATOM" || b == "ATOMG"; }

void ParseOperands(SassInstr& i) {
  std::string s = Trim(i.text);
  i.memory.reset();
  i.guard.reset();
  i.guard_negated = false;
  i.defs.clear();
  i.uses.clear();
  i.branch_label.clear();
  if (!s.empty() && s[0] == '@') {
    size_t sp = s.find_first_of(" \t");
    std::string g = s.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
    if (!g.empty() && g[0] == '!') i.guard_negated = true, g = g.substr(1);
    std::vector<SassReg> r;
    RegistersIn(g, r, 1);
    if (!r.empty()) i.guard = r[0];
    s = sp == std::string::npos ? "" : Trim(s.substr(sp));
  }
  size_t sp = s.find_first_of(" \t");
  i.opcode = s.substr(0, sp);
  i.base = i.opcode.substr(0, i.opcode.find('.'));
  std::vector<std::string> ops = SplitOperands(sp == std::string::npos ? "" : s.substr(sp + 1));
  if (IsBranch(i.base) && !ops.empty()) {
    const std::string& t = ops.back();
    size_t a = t.find("(."), b = t.find(')', a == std::string::npos ? 0 : a);
    if (a != std::string::npos && b != std::string::npos) i.branch_label = t.substr(a + 1, b - a - 1);
  }
  const uint32_t width = AccessBytes(i.opcode) / 4 ? AccessBytes(i.opcode) / 4 : 1;
  size_t ndefs = 1;
  if (NoDestination().count(i.base) || ops.empty()) ndefs = 0;
  else if (i.base.size() > 4 && i.base.compare(i.base.size() - 4, 4, "SETP") == 0) ndefs = 2;  // ISETP P0, P1, ...
  else if (i.base == "PLOP3" || i.base == "UPLOP3") ndefs = 2;
  else if (i.base == "SYNCS") ndefs = i.opcode.find("TRYWAIT") != std::string::npos ? 1 : 0;  // a try-wait writes its predicate
  const bool wide = i.opcode.find(".WIDE") != std::string::npos;  // IMAD.WIDE: a 64-bit result and addend
  // Integer adds write their carry-out predicates right after the result ("IADD3 R8, P2, R8, ...",
  // "LEA R4, P1, R8, UR16, 0x2"); a predicate further on is a carry-in (read).
  static const std::set<std::string> kCarryOut = {"IADD3", "IADD", "LEA", "IMAD", "UIADD3", "ULEA", "UIMAD", "VIADD"};
  if (ndefs == 1 && kCarryOut.count(i.base))
    while (ndefs < ops.size() && (ops[ndefs] == "PT" || ops[ndefs] == "UPT" ||
                                  ((ops[ndefs][0] == 'P' || ops[ndefs].rfind("UP", 0) == 0) && ops[ndefs].size() <= 3)))
      ++ndefs;
  for (size_t k = 0; k < ops.size(); ++k) {
    const bool memory = ops[k].find('[') != std::string::npos;
    const bool vector_data = !memory && (i.base == "LDG" || i.base == "LDS" || i.base == "LD" || i.base == "LDL" || i.base == "STG" ||
                                         i.base == "STS" || i.base == "ST" || i.base == "STL" || i.base == "LDC" || i.base == "ULDC");
    // CS2R writes a register pair unless .32 ("CS2R R96, SRZ" zeroes R96 and R97).
    const bool pair = k == 0 && i.base == "CS2R" && i.opcode.find(".32") == std::string::npos;
    std::vector<SassReg> r;
    RegistersIn(ops[k], r, vector_data ? width : pair || (wide && (k == 0 || k + 1 == ops.size())) ? 2 : 1);
    if (k < ndefs && !memory) i.defs.insert(i.defs.end(), r.begin(), r.end());
    else i.uses.insert(i.uses.end(), r.begin(), r.end());
  }
  if (i.guard) i.uses.push_back(*i.guard);
  static const std::map<std::string, std::string> kSpace = {{"LDG", "global"}, {"LDGSTS", "global"}, {"LD", "generic"},
                                                            {"LDL", "local"}, {"LDS", "shared"}, {"LDSM", "shared"}};
  auto space = kSpace.find(i.base);
  if (space != kSpace.end() && !ops.empty()) i.memory = ParseAddress(ops.back(), space->second, AccessBytes(i.opcode));
}

}  // namespace strata::core::sass
