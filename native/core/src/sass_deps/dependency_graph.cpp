// The dependency graph: the listing's instructions with their control bits from the cubin's
// code, the blocks, and the edges: registers and predicates (the nearest writer on the steady
// path, one lap around an enclosing loop), scoreboards (the nearest instruction that set the
// scoreboard a wait mask names), asynchronous copies and the barrier after a wait (pairing).
#include <algorithm>

#include "../gpu_code/cubin_reader.h"
#include "../gpu_code/sass_listing.h"
#include "control_bits.h"
#include "sass_operands.h"
#include "steady_path.h"
#include "strata/core/api.h"
#include "strata/core/sass_deps.h"

namespace strata::core {
namespace {

bool HasAsyncCopy(const std::vector<gpu::SassInstruction>& v) {
  for (const auto& i : v)
    if (i.text.find("LDGSTS") != std::string::npos || i.text.find("UTMALDG") != std::string::npos ||
        i.text.find("UBLKCP") != std::string::npos)
      return true;
  return false;
}

void RegisterEdges(SassDependencyGraph& g) {
  for (size_t i = 0; i < g.instructions.size(); ++i) {
    std::vector<SassReg> uses = g.instructions[i].uses;
    std::sort(uses.begin(), uses.end());
    uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
    for (const SassReg& u : uses) {
      sass::SteadyWalk w(g, i, 1);
      while (w.Back()) {
        const auto& d = g.instructions[w.at()].defs;
        if (std::find(d.begin(), d.end(), u) == d.end()) continue;
        const bool pred = u.file == SassRegFile::kP || u.file == SassRegFile::kUP;
        g.edges.push_back({w.at(), i, pred ? SassEdgeKind::kPredicate : SassEdgeKind::kRegister, SassRegName(u), w.back_edges() > 0 && w.at() >= i});
        break;
      }
    }
  }
}

void ScoreboardEdges(SassDependencyGraph& g) {
  for (size_t i = 0; i < g.instructions.size(); ++i) {
    const auto& c = g.instructions[i].control;
    if (!c || !c->wait_mask) continue;
    for (int sb = 0; sb < 6; ++sb) {
      if (!(c->wait_mask >> sb & 1)) continue;
      sass::SteadyWalk w(g, i, 1);
      while (w.Back()) {
        const auto& p = g.instructions[w.at()].control;
        if (!p || (p->write_scoreboard != sb && p->read_scoreboard != sb)) continue;
        g.edges.push_back({w.at(), i, SassEdgeKind::kScoreboard, "SB" + std::to_string(sb), w.back_edges() > 0 && w.at() >= i});
        break;
      }
    }
  }
}

}  // namespace

std::string SassRegName(const SassReg& r) {
  static const char* kNames[] = {"R", "UR", "P", "UP"};
  return kNames[int(r.file)] + std::to_string(r.index);
}

const char* SassEdgeKindName(SassEdgeKind k) {
  switch (k) {
    case SassEdgeKind::kRegister: return "register";
    case SassEdgeKind::kPredicate: return "predicate";
    case SassEdgeKind::kScoreboard: return "scoreboard";
    case SassEdgeKind::kAsyncCopy: return "async_copy";
    case SassEdgeKind::kBarrier: return "barrier";
  }
  return "?";
}

std::vector<std::string> SassListingFunctions(std::string_view listing) {
  gpu::SassListing l = gpu::ParseSassListing(listing);
  std::vector<std::string> out;
  for (const auto& [name, _] : l.functions) out.push_back(name);
  return out;
}

SassDependencyGraph BuildSassDependencyGraph(std::string_view cubin, std::string_view listing, const std::string& function) {
  gpu::SassListing l = gpu::ParseSassListing(listing);
  std::string name = function;
  if (name.empty()) {
    for (const auto& [n, v] : l.functions)
      if (HasAsyncCopy(v)) { name = n; break; }
    if (name.empty()) name = l.functions.begin()->first;
  }
  auto f = l.functions.find(name);
  if (f == l.functions.end()) throw Error("SASS listing: no function " + name);
  SassDependencyGraph g;
  g.function = name;
  const gpu::CubinFunction* code = nullptr;
  gpu::Cubin c;
  if (!cubin.empty()) {
    c = gpu::ReadCubin(cubin);
    for (const auto& cf : c.functions)
      if (cf.name == name) code = &cf;
    if (code) {
      g.static_shared_bytes = code->static_shared_bytes;
      g.max_threads = code->max_threads;
    }
  }
  for (const gpu::SassInstruction& li : f->second) {
    SassInstr i;
    i.offset = li.offset;
    i.text = li.text;
    sass::ParseOperands(i);
    if (code && li.offset + sass::kInstructionBytes <= code->code.size())
      i.control = sass::DecodeControlBits(std::string_view(code->code).substr(li.offset, sass::kInstructionBytes));
    if (const gpu::SassLocation* loc = l.LocationOf(li)) {
      i.line = {loc->innermost.file, loc->innermost.line};
      for (const auto& s : loc->inlined_at) i.inlined_at.push_back({s.file, s.line});
    }
    g.instructions.push_back(std::move(i));
  }
  g.has_control_bits = code && !code->code.empty();
  auto labels = l.labels.find(name);
  sass::BuildBlocks(g, labels == l.labels.end() ? std::map<std::string, uint64_t>{} : labels->second);
  RegisterEdges(g);
  if (g.has_control_bits) ScoreboardEdges(g);
  for (const AsyncCopyWait& w : PairAsyncCopies(g)) {
    for (size_t c : w.copies) g.edges.push_back({c, w.wait, SassEdgeKind::kAsyncCopy, AsyncCopyKindName(w.kind), w.iterations > 0});
    if (w.barrier) g.edges.push_back({w.wait, *w.barrier, SassEdgeKind::kBarrier, "BAR", false});
  }
  return g;
}

}  // namespace strata::core
