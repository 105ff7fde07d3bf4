// cuda-gdb's log of a single-stepped warp into the typed trace. Two forms: the JSON lines the
// Python script of `strata trace` writes (kinds meta, note, skip, kernels, focus, entry, step,
// end), or a plain session's output, of which only the `x/i $pc` lines count:
//   => 0x7fffd3259a10 <async_copy_late+272>:\tLDGDEPBAR ;
#include <nlohmann/json.hpp>

#include <regex>
#include <string>

#include "strata/core/api.h"
#include "strata/core/sass_trace.h"

namespace strata::core {
namespace {

// "<kernel+272>" when cuda-gdb printed it: the offset without knowing the entry address.
std::optional<uint64_t> SymbolOffset(const std::string& text) {
  static const std::regex rx(R"(<[^<>+]+\+(\d+)>)");
  std::smatch m;
  if (std::regex_search(text, m, rx)) return std::stoull(m[1].str());
  if (text.find('<') != std::string::npos && text.find("+") == std::string::npos && text.find(">:") != std::string::npos)
    return 0;  // "<kernel>:" is the entry
  return std::nullopt;
}

// "=> 0x... <k+16>:\tFFMA R1, R2, R3, R4 ;" -> "FFMA R1, R2, R3, R4"
std::string InstructionText(const std::string& line) {
  size_t colon = line.find(">:");
  size_t start = colon != std::string::npos ? colon + 2 : line.find(':');
  if (start == std::string::npos) return "";
  std::string s = line.substr(colon != std::string::npos ? start : start + 1);
  size_t semi = s.find(';');
  if (semi != std::string::npos) s.resize(semi);
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

int GuardOf(const nlohmann::json& j) {
  if (!j.contains("guard")) return -1;
  return j["guard"].get<bool>() ? 1 : 0;
}

void ParseJsonLine(const nlohmann::json& j, SassTrace& t, uint64_t& entry, bool& have_entry) {
  const std::string kind = j.value("kind", "");
  if (kind == "meta") {
    if (t.kernel.empty()) t.kernel = j.value("kernel", "");
    t.debugger = j.value("gdb", "");
    t.block = j.value("block", "");
    t.thread = j.value("thread", "");
    t.max_instructions = j.value("limit", 0);
  } else if (kind == "note") {
    t.notes.push_back(j.value("command", "") + ": " + j.value("result", ""));
  } else if (kind == "focus") {
    t.notes.push_back("focus " + j.value("request", "") + ": " + j.value("now", ""));
  } else if (kind == "entry") {
    // The launch breakpoint stops past the kernel's first instruction(s): "async_copy_late + 16 in
    // section .text.async_copy_late" gives the function's start.
    entry = j.value("pc", uint64_t(0));
    const std::string symbol = j.value("symbol", "");
    static const std::regex plus(R"(^\S+ \+ (\d+) in section)");
    std::smatch m;
    if (std::regex_search(symbol, m, plus)) entry -= std::stoull(m[1].str());
    have_entry = true;
  } else if (kind == "step") {
    SassTraceStep s;
    s.text = j.value("text", "");
    const uint64_t pc = j.value("pc", uint64_t(0));
    s.offset = have_entry && pc >= entry ? pc - entry : pc;
    s.guard = GuardOf(j);
    if (j.contains("reads"))
      for (const auto& r : j["reads"]) {
        SassTraceRead rd;
        rd.reg = r.at(0).get<std::string>();
        if (!r.at(1).is_null()) rd.value = r.at(1).get<uint32_t>();
        s.reads.push_back(std::move(rd));
      }
    if (j.contains("mem")) {
      const auto& m = j["mem"];
      SassTraceMemory mem;
      mem.space = m.value("space", "");
      mem.address = m.value("address", uint64_t(0));
      mem.words = m.value("words", std::vector<uint32_t>{});
      mem.error = m.value("error", "");
      s.memory = std::move(mem);
    }
    t.steps.push_back(std::move(s));
  } else if (kind == "end") {
    t.stop_reason = j.value("reason", "");
    t.seconds = j.value("seconds", 0.0);
  }
}

}  // namespace

SassTrace ParseCudaGdbLog(std::string_view log, const std::string& kernel) {
  SassTrace t;
  t.kernel = kernel;
  uint64_t entry = 0;
  bool have_entry = false, plain = false;
  static const std::regex xi(R"(^\s*(=>)?\s*0x([0-9a-fA-F]+)\s*(<[^>]*>)?:)");
  size_t pos = 0;
  while (pos < log.size()) {
    size_t nl = log.find('\n', pos);
    std::string line(log.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? log.size() : nl + 1;
    if (!line.empty() && line[0] == '{') {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded() && j.is_object()) ParseJsonLine(j, t, entry, have_entry);
      continue;
    }
    std::smatch m;
    if (!std::regex_search(line, m, xi) || !m[1].matched) continue;  // a plain session: the "=>" lines
    plain = true;
    SassTraceStep s;
    const uint64_t pc = std::stoull(m[2].str(), nullptr, 16);
    std::optional<uint64_t> off = SymbolOffset(line);
    if (!have_entry && off) {
      entry = pc - *off;
      have_entry = true;
    }
    s.offset = off ? *off : have_entry ? pc - entry : pc;
    s.text = InstructionText(line);
    t.steps.push_back(std::move(s));
  }
  if (plain && t.stop_reason.empty()) t.stop_reason = "plain session (no Python): instructions only";
  if (t.steps.empty())
    throw Error("cuda-gdb log: no instruction was stepped" + (t.stop_reason.empty() ? std::string() : " (" + t.stop_reason + ")"));
  return t;
}

}  // namespace strata::core
