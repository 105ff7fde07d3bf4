// The timing model (docs/async-copies.md "Timing model"): one warp alone on its scheduler, the
// trace's instructions issued in order. An instruction issues `stall` cycles (its predecessor's
// control bits, at least 1) after the one before, and not before the scoreboards in its wait
// mask are released; a variable-latency producer releases its write scoreboard after a fixed
// latency per kind, its read scoreboard 4 cycles after issue; a cp.async group completes
// `global_latency` cycles after its commit, and DEPBAR.LE SB0, N waits for all but the N newest
// groups; a block-wide barrier costs `barrier_cycles`. Nothing else (other warps, bandwidth,
// bank conflicts) is modeled: the model says where this warp's own dependencies make it wait.
#include <algorithm>
#include <cstdlib>
#include <deque>
#include <map>

#include "strata/core/sass_deps.h"

namespace strata::core {
namespace {

double Latency(const SassInstr& i, const TimingModelParams& p) {
  const std::string& b = i.base;
  if (b == "LDG" || b == "LD" || b == "LDL" || b == "ATOM" || b == "ATOMG" || b == "RED" || b == "STG" || b == "STL") return p.global_latency;
  if (b == "LDS" || b == "LDSM" || b == "ATOMS" || b == "STS") return p.shared_latency;
  return p.other_latency;
}

}  // namespace

std::vector<TimedStep> ModelTraceTiming(const SassDependencyGraph& g, const SassTrace& trace, const TimingModelParams& p) {
  std::map<uint64_t, size_t> at;
  for (size_t k = 0; k < g.instructions.size(); ++k) at[g.instructions[k].offset] = k;
  std::vector<TimedStep> out;
  double sb_ready[6] = {0, 0, 0, 0, 0, 0};
  std::deque<double> groups;  // completion cycles of committed cp.async groups, oldest first
  double prev_issue = -1, prev_stall = 1;
  for (size_t s = 0; s < trace.steps.size(); ++s) {
    // A step that did not advance (the warp held at a barrier under the debugger) issued once.
    if (s > 0 && trace.steps[s].offset == trace.steps[s - 1].offset) continue;
    TimedStep t;
    t.step = s;
    t.offset = trace.steps[s].offset;
    const double earliest = prev_issue < 0 ? 0 : prev_issue + std::max(1.0, prev_stall);
    double issue = earliest;
    auto it = at.find(t.offset);
    const SassInstr* i = it == at.end() ? nullptr : &g.instructions[it->second];
    if (i && i->control) {
      for (int sb = 0; sb < 6; ++sb)
        if ((i->control->wait_mask >> sb & 1) && sb_ready[sb] > issue) issue = sb_ready[sb], t.waited_for = "SB" + std::to_string(sb);
    }
    if (i && i->base == "DEPBAR" && i->text.find("SB0") != std::string::npos) {
      size_t comma = i->text.find(',', i->text.find("SB0"));
      const size_t keep = comma == std::string::npos ? 0 : size_t(std::strtol(i->text.c_str() + comma + 1, nullptr, 0));
      while (groups.size() > keep) {
        if (groups.front() > issue) issue = groups.front(), t.waited_for = "cp.async group";
        groups.pop_front();
      }
    }
    if (i && i->base == "BAR") issue += p.barrier_cycles, t.waited_for = t.waited_for.empty() ? "barrier" : t.waited_for;
    t.issue = issue;
    t.stall = issue - earliest;
    const bool executes = trace.steps[s].guard != 0;
    if (i && executes) {
      if (i->base == "LDGDEPBAR") groups.push_back(issue + p.global_latency);
      if (i->control) {
        if (i->control->write_scoreboard >= 0) sb_ready[i->control->write_scoreboard] = issue + Latency(*i, p);
        if (i->control->read_scoreboard >= 0)
          sb_ready[i->control->read_scoreboard] = std::max(sb_ready[i->control->read_scoreboard], issue + 4);
      }
    }
    prev_issue = issue;
    prev_stall = i && i->control ? i->control->stall : 1;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<WaitClassification> ClassifyWaitsFromTrace(const SassDependencyGraph& g, const std::vector<AsyncCopyWait>& waits,
                                                       const std::vector<TimedStep>& timed, const WaitThresholds& t) {
  const double total = timed.empty() ? 0 : timed.back().issue + 1;
  std::vector<WaitClassification> out;
  for (size_t k = 0; k < waits.size(); ++k) {
    WaitClassification c;
    c.wait = k;
    c.evidence = "trace (timing model)";
    const uint64_t off = g.instructions[waits[k].wait].offset;
    double stall = 0;
    int passes = 0;
    for (const TimedStep& s : timed)
      if (s.offset == off) stall += s.stall, ++passes;
    c.model_stall_cycles = passes ? stall / passes : 0;
    c.share = total > 0 ? stall / total : 0;
    c.verdict = passes == 0 ? WaitVerdict::kUnknown : c.share >= t.stalled_share ? WaitVerdict::kStalled : WaitVerdict::kSlack;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace strata::core
