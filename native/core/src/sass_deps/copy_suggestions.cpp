// "Issue this copy K instructions earlier": for a stalled cp.async wait whose copies run in the
// same loop as the wait, fewer iterations ahead than the shared memory allows. The ring's size
// is read from the kernel's shared memory over one group's bytes (the copies' widths times the
// block's threads); the copy may move only if its address and guard registers come from integer
// arithmetic (loop counters, block indices, constants), not from loaded or computed data.
#include <algorithm>
#include <cstdio>
#include <set>

#include "sass_operands.h"
#include "source_text.h"
#include "strata/core/sass_deps.h"

namespace strata::core {
namespace {

bool AddressArithmetic(const std::string& base) {
  static const std::set<std::string> ok = {
      "IADD3", "IADD", "IMAD", "IMUL", "LEA", "SHF", "SHL", "SHR", "LOP3", "LOP", "MOV", "SEL", "ISETP", "IMNMX", "PRMT", "BMSK",
      "SGXT", "IABS", "S2R", "S2UR", "CS2R", "LDC", "ULDC", "UIADD3", "UIMAD", "ULEA", "USHF", "ULOP3", "UMOV", "USEL", "UISETP",
      "R2UR", "UPRMT", "PLOP3", "UPLOP3", "VIADD", "VIADDMNMX", "IDP", "FLO", "POPC", "BREV", "P2R", "R2P", "MOV32I"};
  return ok.count(base) > 0;
}

// Whether every writer of `i`'s operands, transitively (16 hops), is integer arithmetic.
bool FromCounters(const SassDependencyGraph& g, size_t i, const std::vector<std::vector<size_t>>& writers) {
  std::vector<size_t> todo = {i};
  std::set<size_t> seen = {i};
  for (int hops = 0; hops < 16 && !todo.empty(); ++hops) {
    std::vector<size_t> next;
    for (size_t k : todo)
      for (size_t w : writers[k]) {
        if (!seen.insert(w).second) continue;
        const SassInstr& wi = g.instructions[w];
        const bool constant = wi.uses.empty() && wi.base.rfind("LD", 0) != 0 && wi.base != "ATOM" && wi.base != "ATOMS";
        if (!AddressArithmetic(wi.base) && !constant) return false;
        next.push_back(w);
      }
    todo.swap(next);
  }
  return true;
}

struct Loop {
  size_t head = 0, tail = 0;  // blocks: the back edge tail -> head
};

// The innermost loop holding both instructions (a back edge tail -> head with head <= both <= tail).
std::optional<Loop> EnclosingLoop(const SassDependencyGraph& g, size_t a, size_t b) {
  std::optional<Loop> best;
  const size_t ba = g.block_of[a], bb = g.block_of[b];
  for (size_t h = 0; h < g.blocks.size(); ++h)
    for (size_t p : g.blocks[h].predecessors)
      if (p >= h && h <= std::min(ba, bb) && std::max(ba, bb) <= p && (!best || p - h < best->tail - best->head)) best = Loop{h, p};
  return best;
}

std::string Hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string Number(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

}  // namespace

std::vector<CopySuggestion> SuggestEarlierCopies(const SassDependencyGraph& g, const std::vector<AsyncCopyWait>& waits,
                                                 const std::vector<WaitClassification>& verdicts, const SuggestionLimits& limits) {
  std::vector<std::vector<size_t>> writers(g.instructions.size());
  for (const SassEdge& e : g.edges)
    if (e.kind == SassEdgeKind::kRegister || e.kind == SassEdgeKind::kPredicate) writers[e.to].push_back(e.from);
  std::vector<CopySuggestion> out;
  // mbarrier rings: one barrier per stage, each initialized once (mbarrier.init is SYNCS.EXCH.64).
  uint32_t barriers = 0;
  for (const SassInstr& i : g.instructions) barriers += i.base == "SYNCS" && i.opcode.find("EXCH") != std::string::npos;
  for (const WaitClassification& v : verdicts) {
    if (v.verdict != WaitVerdict::kStalled) continue;
    const AsyncCopyWait& w = waits[v.wait];
    if (w.copies.empty()) continue;
    if (w.kind != AsyncCopyKind::kCpAsync) {
      // A TMA / bulk copy issued and waited for in the same iteration, in a ring of mbarriers.
      std::optional<Loop> loop = EnclosingLoop(g, w.copies.front(), w.wait);
      if (!loop || w.iterations > 0 || w.iterations_at_least || barriers < 2) continue;
      CopySuggestion s;
      s.wait = v.wait;
      s.addresses_from_counters = true;
      for (size_t c : w.copies) s.addresses_from_counters = s.addresses_from_counters && FromCounters(g, c, writers);
      if (!s.addresses_from_counters) continue;
      s.ring_groups = barriers;
      s.loop_instructions = uint32_t(g.blocks[loop->tail].last - g.blocks[loop->head].first + 1);
      s.iterations_earlier = barriers - 1;
      s.instructions_earlier = uint64_t(s.iterations_earlier) * s.loop_instructions;
      const SassInstr& wait = g.instructions[w.wait];
      const SassInstr& copy = g.instructions[w.copies.front()];
      s.message = "The mbarrier wait at " + sass::SourceText(wait) + " stalls on the " + AsyncCopyKindName(w.kind) + " copy at " +
                  sass::SourceText(copy) + " (" + copy.opcode + " at +" + Hex(copy.offset) + "), issued " + std::to_string(w.distance) +
                  " instructions before it in the same iteration. Its addresses come from loop counters only and the kernel has " +
                  std::to_string(barriers) + " mbarriers (stages): issue it " + std::to_string(s.iterations_earlier) +
                  (s.iterations_earlier == 1 ? " iteration" : " iterations") + " earlier (K = " + Number(s.instructions_earlier) +
                  " instructions: a prologue fills " + std::to_string(s.iterations_earlier) +
                  " stages), after the barrier that frees its stage.";
      out.push_back(std::move(s));
      continue;
    }
    const SassInstr& wait = g.instructions[w.wait];
    const SassInstr& copy = g.instructions[w.copies.front()];  // the group's last copy
    CopySuggestion s;
    s.wait = v.wait;
    s.addresses_from_counters = true;
    for (size_t c : w.copies) s.addresses_from_counters = s.addresses_from_counters && FromCounters(g, c, writers);
    const uint32_t threads = limits.threads_per_block ? limits.threads_per_block : g.max_threads;
    s.group_bytes = w.bytes_per_thread * threads;
    const uint64_t shared = g.static_shared_bytes + limits.dynamic_shared_bytes;
    s.ring_groups = s.group_bytes ? uint32_t(shared / s.group_bytes) : 0;
    std::optional<Loop> loop = EnclosingLoop(g, w.copies.front(), w.wait);
    const std::string where = "the copy at " + sass::SourceText(copy) + " (" + copy.opcode + " at +" + Hex(copy.offset) + ")";
    if (!loop) continue;  // straight-line code: nothing to pipeline across iterations
    s.loop_instructions = uint32_t(g.blocks[loop->tail].last - g.blocks[loop->head].first + 1);
    if (!s.addresses_from_counters) continue;  // its addresses depend on data: it cannot move up freely
    if (s.ring_groups == 0) {
      s.iterations_earlier = 1;
      s.instructions_earlier = s.loop_instructions;
      s.new_allowed_pending = int(w.iterations);
      s.message = "The wait at " + sass::SourceText(wait) + " stalls on " + where + ", issued " + std::to_string(w.distance) +
                  " instructions before it in the same iteration. Issue it at least one iteration (about " +
                  Number(s.instructions_earlier) + " instructions) earlier if the shared memory holds another group (" +
                  (threads ? "" : "threads per block unknown: ") + "not checked).";
      out.push_back(std::move(s));
      continue;
    }
    const uint32_t ahead_max = s.ring_groups - 1;  // iterations ahead the ring allows
    if (w.iterations >= ahead_max) {
      const uint64_t deeper = uint64_t(s.ring_groups + 1) * s.group_bytes;
      if (deeper > limits.shared_bytes_limit) continue;
      s.iterations_earlier = 1;
      s.instructions_earlier = s.loop_instructions;
      s.new_allowed_pending = int(w.iterations);
      s.message = "The wait at " + sass::SourceText(wait) + " stalls on " + where + ", already " + std::to_string(w.iterations) +
                  " iterations ahead, as far as the " + std::to_string(s.ring_groups) + "-group ring allows: add a stage (" +
                  Number(deeper) + " bytes of shared memory) and issue it one iteration (about " + Number(s.instructions_earlier) +
                  " instructions) earlier.";
      out.push_back(std::move(s));
      continue;
    }
    s.iterations_earlier = ahead_max - w.iterations;
    s.instructions_earlier = uint64_t(s.iterations_earlier) * s.loop_instructions;
    s.new_allowed_pending = int(ahead_max) - 1;
    s.message = "The wait at " + sass::SourceText(wait) + " (" + wait.opcode + " " + wait.text.substr(wait.text.find(' ') + 1) +
                ") stalls on " + where + ", issued " + std::to_string(w.distance) + " instructions before it" +
                (w.iterations ? " (" + std::to_string(w.iterations) + " iterations ahead)" : " in the same iteration") +
                ". Its addresses come from loop counters only and the shared memory holds " + std::to_string(s.ring_groups) +
                " groups of " + Number(s.group_bytes) + " bytes: issue it " + std::to_string(s.iterations_earlier) +
                (s.iterations_earlier == 1 ? " iteration" : " iterations") + " earlier (K = " + Number(s.instructions_earlier) +
                " instructions: a prologue fills " + std::to_string(ahead_max) + " stages) and wait with cp.async.wait_group " +
                std::to_string(s.new_allowed_pending) + " before refilling a stage.";
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace strata::core
