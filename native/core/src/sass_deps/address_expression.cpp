#include "address_expression.h"

#include <functional>
#include <string>

namespace strata::core::sass {
namespace {

uint64_t Mix(uint64_t h, uint64_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }
uint64_t HashOf(const std::string& s) { return std::hash<std::string>{}(s); }

// The instruction's text without its registers (their expressions are mixed in instead):
// "ULEA UR9, UR11, UR9, 0x3" -> "ULEA #, #, #, 0x3".
std::string Shape(const SassInstr& i) {
  std::string out, t = i.text;
  if (!t.empty() && t[0] == '@') t = t.substr(t.find(' ') == std::string::npos ? t.size() : t.find(' ') + 1);
  for (size_t k = 0; k < t.size();) {
    const bool start = k == 0 || !(std::isalnum(uint8_t(t[k - 1])) || t[k - 1] == '_');
    size_t n = t.compare(k, 2, "UR") == 0 || t.compare(k, 2, "UP") == 0 ? 2 : (t[k] == 'R' || t[k] == 'P') ? 1 : 0;
    if (start && n && k + n < t.size() && std::isdigit(uint8_t(t[k + n]))) {
      k += n;
      while (k < t.size() && std::isdigit(uint8_t(t[k]))) ++k;
      out += '#';
      continue;
    }
    out += t[k++];
  }
  return out;
}

}  // namespace

AddressExpressions::AddressExpressions(const SassDependencyGraph& g) : g_(g) {
  for (const SassEdge& e : g.edges) {
    if (e.kind != SassEdgeKind::kRegister && e.kind != SassEdgeKind::kPredicate) continue;
    // The edge names the register ("R4"); find it among the reader's uses.
    for (const SassReg& r : g.instructions[e.to].uses)
      if (SassRegName(r) == e.what) writer_[{e.to, r}] = {e.from, e.loop_carried};
  }
}

uint64_t AddressExpressions::Input(size_t reader, const SassReg& r, int depth) const {
  auto it = writer_.find({reader, r});
  if (it == writer_.end()) return Mix(HashOf("input"), HashOf(SassRegName(r)));  // read before any writer
  if (it->second.second) return Mix(HashOf("carried"), it->second.first);        // an earlier iteration's value
  return Value(it->second.first, depth + 1);
}

uint64_t AddressExpressions::Value(size_t w, int depth) const {
  auto m = memo_.find(w);
  if (m != memo_.end()) return m->second;
  if (depth > 32) return Mix(HashOf("deep"), w);
  const SassInstr& i = g_.instructions[w];
  uint64_t h = HashOf(Shape(i));
  for (const SassReg& r : i.uses) h = Mix(h, Input(w, r, depth));
  memo_[w] = h;
  return h;
}

uint64_t AddressExpressions::Of(size_t i) const {
  const SassInstr& in = g_.instructions[i];
  // The mbarrier operand: the last bracket group ("[UR9]", "[R3+UR17]").
  size_t open = in.text.rfind('['), close = in.text.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return 0;
  SassInstr operand;
  operand.text = "ADDR " + in.text.substr(open, close - open + 1);
  uint64_t h = HashOf(Shape(operand));
  for (const SassReg& r : in.uses) {
    const std::string name = SassRegName(r);
    if (in.text.find(name, open) != std::string::npos && in.text.find(name, open) < close) h = Mix(h, Input(i, r, 0));
  }
  return h;
}

}  // namespace strata::core::sass
