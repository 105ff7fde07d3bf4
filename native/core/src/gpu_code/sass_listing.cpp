// nvdisasm listing parser: a line-by-line scan, no regex (listings run to megabytes).
#include "sass_listing.h"

#include <algorithm>

#include "strata/core/api.h"

namespace strata::core::gpu {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool Consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool ParseUint(std::string_view& s, int base, uint64_t* out) {
  uint64_t v = 0;
  size_t n = 0;
  for (; n < s.size() && n < 17; ++n) {
    char c = s[n];
    int d = c >= '0' && c <= '9' ? c - '0'
          : base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10
          : base == 16 && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) break;
    v = v * uint64_t(base) + uint64_t(d);
  }
  if (n == 0) return false;
  s.remove_prefix(n);
  *out = v;
  return true;
}

// `File "PATH", line N` (the "File" is absent after "inlined at") at the start of s; advances.
bool ParseFileLine(std::string_view& s, SourceLine* out) {
  s = Trim(s);
  Consume(s, "File ");
  if (!Consume(s, "\"")) return false;
  size_t quote = s.find('"');
  if (quote == std::string_view::npos) return false;
  out->file = std::string(s.substr(0, quote));
  s.remove_prefix(quote + 1);
  s = Trim(s);
  if (!Consume(s, ",")) return false;
  s = Trim(s);
  if (!Consume(s, "line ")) return false;
  uint64_t line;
  if (!ParseUint(s, 10, &line) || line > 0xFFFFFFFFu) return false;
  out->line = uint32_t(line);
  return true;
}

// A `//##` comment: the location, plus the "inlined at" it names (if any).
bool ParseLocationComment(std::string_view s, SourceLine* at, SourceLine* inlined_at, bool* inlined) {
  if (!Consume(s, "//##")) return false;
  if (!ParseFileLine(s, at)) return false;
  // Optional ", column N" (newer nvdisasm) before "inlined at".
  size_t pos = s.find("inlined at");
  *inlined = pos != std::string_view::npos;
  if (*inlined) {
    s.remove_prefix(pos + 10);
    if (!ParseFileLine(s, inlined_at)) *inlined = false;
  }
  return true;
}

// `.text.NAME` -> NAME (section names may be quoted).
std::string FunctionOfSection(std::string_view s) {
  if (!s.empty() && s.front() == '"') s.remove_prefix(1);
  if (!Consume(s, ".text.")) return {};
  size_t end = s.find_first_of(",\" \t");
  return std::string(s.substr(0, end));
}

}  // namespace

const SassInstruction* SassListing::Find(const std::string& function, uint64_t pc) const {
  auto it = functions.find(function);
  if (it == functions.end()) return nullptr;
  const auto& v = it->second;
  auto i = std::lower_bound(v.begin(), v.end(), pc, [](const SassInstruction& a, uint64_t b) { return a.offset < b; });
  return i != v.end() && i->offset == pc ? &*i : nullptr;
}

SassListing ParseSassListing(std::string_view text) {
  SassListing out;
  std::vector<SassInstruction>* current = nullptr;
  int32_t location = -1;
  bool in_comment_run = false;  // the previous line was a //## line
  bool pending = false;         // the run's last line named an "inlined at" not yet printed
  SourceLine pending_caller;
  size_t instructions = 0;
  std::string current_name;
  std::vector<std::string> pending_labels;  // labels waiting for the instruction they name
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = Trim(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);

    SourceLine at, inlined_at;
    bool inlined = false;
    if (current && ParseLocationComment(line, &at, &inlined_at, &inlined)) {
      if (!in_comment_run) {  // a new run: its first line is the innermost location
        out.locations.push_back(SassLocation{at, {}});
        location = int32_t(out.locations.size() - 1);
      } else {  // each further line of the run is the next caller out
        out.locations.back().inlined_at.push_back(at);
      }
      // nvdisasm prints the caller's own line after an "inlined at" line; should it not, the
      // "inlined at" still names the caller (added when the run ends).
      pending = inlined;
      pending_caller = inlined_at;
      in_comment_run = true;
      continue;
    }
    if (in_comment_run && pending) out.locations.back().inlined_at.push_back(pending_caller);
    in_comment_run = pending = false;

    std::string_view rest = line;
    if (Consume(rest, ".section")) {
      std::string name = FunctionOfSection(Trim(rest));
      if (!name.empty()) { current = &out.functions[name]; location = -1; current_name = name; }
      continue;
    }
    if (line.size() > 7 && line.back() == ':' && line.substr(0, 6) == ".text.") {
      std::string name = FunctionOfSection(line.substr(0, line.size() - 1));
      if (!name.empty() && current != &out.functions[name]) { current = &out.functions[name]; location = -1; current_name = name; }
      continue;
    }
    if (current && line.size() > 2 && line.front() == '.' && line.back() == ':') {  // a branch target: ".L_x_1:"
      pending_labels.emplace_back(line.substr(0, line.size() - 1));
      continue;
    }
    if (!current || !Consume(rest, "/*")) continue;
    uint64_t offset;
    if (!ParseUint(rest, 16, &offset) || !Consume(rest, "*/")) continue;
    // Drop an encoding comment (listings made without -c) and the closing ';'.
    size_t enc = rest.find("/*");
    if (enc != std::string_view::npos) rest = rest.substr(0, enc);
    rest = Trim(rest);
    if (!rest.empty() && rest.back() == ';') rest = Trim(rest.substr(0, rest.size() - 1));
    current->push_back(SassInstruction{offset, std::string(rest), location});
    for (const std::string& label : pending_labels) out.labels[current_name][label] = offset;
    pending_labels.clear();
    ++instructions;
  }
  for (auto it = out.functions.begin(); it != out.functions.end();) {
    auto& v = it->second;
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    it = v.empty() ? out.functions.erase(it) : std::next(it);
  }
  if (instructions == 0) throw Error("SASS listing: no functions with instructions found");
  return out;
}

}  // namespace strata::core::gpu
