// What the order of the executed instructions says: branch outcomes and loop trip counts.
// An instruction is 16 bytes on sm_70 and later: the next one in memory is offset + 16.
#include <map>
#include <utility>

#include "strata/core/sass_trace.h"

namespace strata::core {
namespace {

constexpr uint64_t kInstructionBytes = 16;

bool IsControlFlow(const std::string& text) {
  std::string op = text;
  if (!op.empty() && op[0] == '@') op = op.substr(op.find(' ') == std::string::npos ? op.size() : op.find(' ') + 1);
  op = op.substr(0, op.find_first_of(" .;"));
  return op == "BRA" || op == "BRX" || op == "JMP" || op == "JMX" || op == "CALL" || op == "RET" || op == "BSYNC" ||
         op == "BREAK" || op == "EXIT";
}

}  // namespace

std::vector<SassBranchOutcome> BranchOutcomes(const SassTrace& t) {
  std::map<uint64_t, SassBranchOutcome> by;
  for (size_t i = 0; i + 1 < t.steps.size(); ++i) {
    const SassTraceStep& s = t.steps[i];
    if (!IsControlFlow(s.text) || t.steps[i + 1].offset == s.offset) continue;
    SassBranchOutcome& o = by[s.offset];
    o.offset = s.offset;
    (t.steps[i + 1].offset == s.offset + kInstructionBytes ? o.fallthrough : o.taken)++;
  }
  std::vector<SassBranchOutcome> v;
  for (auto& [_, o] : by) v.push_back(o);
  return v;
}

std::vector<SassLoop> TraceLoops(const SassTrace& t) {
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> taken;
  for (size_t i = 0; i + 1 < t.steps.size(); ++i)
    // The same offset twice in a row is a step that did not advance (a warp held at a barrier
    // while the debugger stepped it), not a loop.
    if (t.steps[i + 1].offset < t.steps[i].offset) ++taken[{t.steps[i + 1].offset, t.steps[i].offset}];
  std::vector<SassLoop> v;
  for (const auto& [k, n] : taken) v.push_back({k.first, k.second, n + 1});
  return v;
}

}  // namespace strata::core
