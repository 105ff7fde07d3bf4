// Each asynchronous-copy wait with the copies it completes, on the steady-state path.
//   cp.async: LDGSTS copies join the open group, LDGDEPBAR commits it, `DEPBAR.LE SB0, N` waits
//   until at most N committed groups are pending: walking back from the wait, the (N+1)-th
//   commit closed the group it completes, whose copies lie between that commit and the one
//   before it.
//   TMA / bulk copies (UTMALDG, UBLKCP) complete on an mbarrier that a SYNCS...TRYWAIT polls,
//   armed by a SYNCS.ARRIVE.TRANS64 (expect_tx) before the copy. The barrier's address is
//   computed in registers; two addresses are the same barrier when their expressions are
//   (address_expression.h: the same operations on the same inputs in one iteration). Walking
//   back from the wait: an arrive on the same barrier in the same iteration gives the copies
//   after it (a copy issued and waited for in one iteration); none before the loop's back edge
//   means the barrier was armed in an earlier iteration: the nearest copy one iteration back,
//   distance and iterations then lower bounds. Without arrives: the nearest copies by order.
#include <algorithm>
#include <cstdlib>
#include <map>

#include "sass_operands.h"
#include "address_expression.h"
#include "steady_path.h"
#include "strata/core/api.h"
#include "strata/core/sass_deps.h"

namespace strata::core {
namespace {

bool IsTmaWait(const SassInstr& i) {
  return i.base == "SYNCS" && (i.opcode.find("TRYWAIT") != std::string::npos || i.opcode.find("PHASECHK") != std::string::npos);
}

// N of "DEPBAR.LE SB0, 0x1" (-1: not a cp.async wait on SB0).
int DepbarPending(const SassInstr& i) {
  if (i.base != "DEPBAR") return -1;
  size_t sb = i.text.find("SB0");
  if (sb == std::string::npos) return -1;
  size_t comma = i.text.find(',', sb);
  if (comma == std::string::npos) return 0;
  return int(std::strtol(i.text.c_str() + comma + 1, nullptr, 0));
}

std::optional<size_t> BarrierAfter(const SassDependencyGraph& g, size_t wait) {
  for (size_t k = wait + 1; k < g.instructions.size() && k <= wait + 8; ++k) {
    const SassInstr& i = g.instructions[k];
    if (i.base == "BAR" && i.opcode.find("SYNC") != std::string::npos) return k;
    if (sass::IsBranch(i.base) || i.base == "EXIT") break;
  }
  return std::nullopt;
}

AsyncCopyWait PairCpAsync(const SassDependencyGraph& g, size_t wait, int pending) {
  AsyncCopyWait w;
  w.kind = AsyncCopyKind::kCpAsync;
  w.wait = wait;
  w.allowed_pending = pending;
  sass::SteadyWalk walk(g, wait, pending + 2);
  int commits = 0;
  while (walk.Back()) {
    const SassInstr& i = g.instructions[walk.at()];
    if (i.base == "LDGDEPBAR") {
      if (w.commit) break;  // the group's start
      if (++commits == pending + 1) w.commit = walk.at();
      continue;
    }
    if (w.commit && i.base == "LDGSTS") {
      if (w.copies.empty()) {
        w.distance = walk.steps();
        w.iterations = uint32_t(walk.back_edges_around(walk.at(), wait));
      }
      w.copies.push_back(walk.at());
      w.bytes_per_thread += sass::AccessBytes(i.opcode);
    }
  }
  if (!w.commit) w.note = "no commit (LDGDEPBAR) " + std::to_string(pending + 1) + " back on the path: the wait completes nothing";
  else if (w.copies.empty()) w.note = "the group it completes holds no copy";
  w.barrier = BarrierAfter(g, wait);
  return w;
}

bool IsTmaCopy(const SassInstr& i) { return i.base == "UTMALDG" || i.base == "UBLKCP"; }
bool IsArrive(const SassInstr& i) { return i.base == "SYNCS" && i.opcode.find("ARRIVE") != std::string::npos; }

void AddCopy(AsyncCopyWait& w, const SassDependencyGraph& g, const sass::SteadyWalk& walk, size_t wait) {
  const size_t at = walk.at();
  for (size_t c : w.copies)
    if (c == at) return;  // the same instruction again (an elect loop around the copy)
  if (w.copies.empty()) {
    w.kind = g.instructions[at].base == "UBLKCP" ? AsyncCopyKind::kBulk : AsyncCopyKind::kTma;
    w.distance = walk.steps();
    w.iterations = uint32_t(walk.back_edges_around(at, wait));
  }
  w.copies.push_back(at);
}

AsyncCopyWait PairTma(const SassDependencyGraph& g, size_t wait, const sass::AddressExpressions& exprs, bool arrives) {
  AsyncCopyWait w;
  w.wait = wait;
  w.kind = AsyncCopyKind::kTma;
  w.barrier = BarrierAfter(g, wait);
  if (arrives) {
    // The copies between the arrive on this wait's barrier and the wait, in this iteration.
    const uint64_t barrier = exprs.Of(wait);
    sass::SteadyWalk walk(g, wait, 1);
    std::vector<std::pair<size_t, uint64_t>> seen;  // copies passed (instruction, steps)
    while (walk.Back() && walk.back_edges_around(wait, wait) == 0) {
      const SassInstr& i = g.instructions[walk.at()];
      if (IsTmaCopy(i)) {
        bool again = false;
        for (const auto& s : seen) again |= s.first == walk.at();
        if (!again) seen.push_back({walk.at(), walk.steps()});
      }
      if (IsArrive(i) && exprs.Of(walk.at()) == barrier && !seen.empty()) {
        w.kind = g.instructions[seen.front().first].base == "UBLKCP" ? AsyncCopyKind::kBulk : AsyncCopyKind::kTma;
        w.distance = seen.front().second;
        for (const auto& s : seen) w.copies.push_back(s.first);
        return w;
      }
    }
    // Armed in an earlier iteration: the nearest copy one iteration back.
    sass::SteadyWalk back(g, wait, 1);
    while (back.Back()) {
      if (back.back_edges_around(wait, wait) == 0 || !IsTmaCopy(g.instructions[back.at()])) continue;
      AddCopy(w, g, back, wait);
      w.iterations = std::max<uint32_t>(w.iterations, 1);
      w.iterations_at_least = true;
      w.note = "the barrier it polls was armed in an earlier iteration (at least one back)";
      return w;
    }
  }
  sass::SteadyWalk walk(g, wait, 2);
  while (walk.Back()) {
    const SassInstr& i = g.instructions[walk.at()];
    if (IsTmaWait(i) && !w.copies.empty()) break;
    if (IsTmaCopy(i)) AddCopy(w, g, walk, wait);
  }
  if (w.copies.empty()) w.note = "no TMA or bulk copy before it on the path (an mbarrier wait of another kind)";
  return w;
}


// The try-wait a retry loop repeats: `k` sits in a block that loops on itself and is entered
// from outside only by branches from blocks that end right after another try-wait (ptxas puts
// the retry of `mbarrier.try_wait` out of line). Returns that first try-wait.
std::optional<size_t> RetryOf(const SassDependencyGraph& g, size_t k) {
  const size_t b = g.block_of[k];
  if (!g.blocks[b].loop_head) return std::nullopt;
  std::optional<size_t> first;
  for (size_t p : g.blocks[b].predecessors) {
    if (p >= b) continue;  // the retry's own back edge
    const SassBlock& pb = g.blocks[p];
    std::optional<size_t> wait;
    for (size_t i = pb.first; i <= pb.last; ++i)
      if (IsTmaWait(g.instructions[i])) wait = i;
    if (!wait || (first && *first != *wait)) return std::nullopt;
    first = wait;
  }
  return first;
}

}  // namespace

const char* AsyncCopyKindName(AsyncCopyKind k) {
  switch (k) {
    case AsyncCopyKind::kCpAsync: return "cp.async";
    case AsyncCopyKind::kTma: return "tma";
    case AsyncCopyKind::kBulk: return "bulk";
  }
  return "?";
}

std::string AsyncWaitBefore(std::string_view listing, const std::string& function, uint64_t offset) {
  try {
    SassDependencyGraph g = BuildSassDependencyGraph("", listing, function);
    for (size_t k = 1; k < g.instructions.size(); ++k)
      if (g.instructions[k].offset == offset) {
        const SassInstr& before = g.instructions[k - 1];
        return DepbarPending(before) >= 0 || IsTmaWait(before) ? before.text : "";
      }
  } catch (const Error&) {
  }
  return "";
}

std::vector<AsyncCopyWait> PairAsyncCopies(const SassDependencyGraph& g) {
  std::vector<AsyncCopyWait> out;
  bool any_tma = false;
  for (const SassInstr& i : g.instructions) any_tma |= i.base == "UTMALDG" || i.base == "UBLKCP";
  std::map<size_t, size_t> wait_index;  // instruction -> index into out
  std::vector<size_t> retries;
  bool arrives = false;
  for (const SassInstr& i : g.instructions) arrives |= IsArrive(i);
  sass::AddressExpressions exprs(g);
  for (size_t k = 0; k < g.instructions.size(); ++k) {
    const SassInstr& i = g.instructions[k];
    const int pending = DepbarPending(i);
    if (pending >= 0) {
      out.push_back(PairCpAsync(g, k, pending));
    } else if (any_tma && IsTmaWait(i)) {
      if (RetryOf(g, k)) {
        retries.push_back(k);
        continue;
      }
      AsyncCopyWait w = PairTma(g, k, exprs, arrives);
      if (w.copies.empty()) continue;
      wait_index[k] = out.size();
      out.push_back(std::move(w));
    }
  }
  for (size_t k : retries) {
    auto it = wait_index.find(*RetryOf(g, k));
    if (it != wait_index.end()) out[it->second].retries.push_back(k);
  }
  return out;
}

}  // namespace strata::core
