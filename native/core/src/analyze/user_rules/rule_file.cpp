#include "rule_file.h"

#include <cctype>
#include <cstdlib>
#include <set>

#include "strata/core/api.h"

namespace strata::core::detail {

namespace {

std::string Trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// Any frame kind of the format but the root, or "*".
bool KnownKind(const std::string& kind) { return kind == "*" || FrameKindCode(kind) > 0; }
const std::set<std::string> kFuncs = {"inclusive", "exclusive", "count", "mean", "min", "max", "std", "share", "self_share"};
const std::set<std::string> kOps = {">", ">=", "<", "<=", "==", "!="};

bool ParsePath(std::string text, UserRule* r, std::string* err) {
  text = Trim(text);
  if (!text.empty() && text[0] == '^') { r->anchored = true; text = Trim(text.substr(1)); }
  size_t start = 0;
  while (start <= text.size()) {
    size_t gt = text.find('>', start);
    std::string item = Trim(text.substr(start, gt == std::string::npos ? std::string::npos : gt - start));
    if (item.empty()) { *err = "empty element in path (expected KIND:NAME[@FILE] or ...)"; return false; }
    FrameMatcher m;
    if (item == "...") {
      m.any_run = true;
    } else {
      size_t colon = item.find(':');
      if (colon == std::string::npos) { *err = "path element '" + item + "' needs KIND:NAME (e.g. python:train, native:*sort*, *:*)"; return false; }
      m.kind = Trim(item.substr(0, colon));
      std::string rest = Trim(item.substr(colon + 1));
      size_t at = rest.find('@');
      m.name = Trim(rest.substr(0, at));
      if (at != std::string::npos) m.file = Trim(rest.substr(at + 1));
      if (!KnownKind(m.kind)) { *err = "unknown frame kind '" + m.kind + "' (python, native, operator, gpu_api, kernel, pc, region or *)"; return false; }
      if (m.name.empty()) m.name = "*";
      if (m.file.empty()) m.file = "*";
    }
    r->path.push_back(m);
    if (gt == std::string::npos) break;
    start = gt + 1;
  }
  if (!r->path.empty() && r->path.back().any_run) { *err = "a path cannot end with ... (its last element is the flagged frame)"; return false; }
  return true;
}

bool ParsePredicate(const std::string& text, int line, Predicate* p, std::string* err) {
  std::string s = Trim(text);
  size_t open = s.find('('), close = s.find(')');
  if (open == std::string::npos || close == std::string::npos || close < open) {
    *err = "condition '" + s + "' should look like inclusive(cpu_time) > 5%";
    return false;
  }
  p->func = Trim(s.substr(0, open));
  p->metric = Trim(s.substr(open + 1, close - open - 1));
  if (!kFuncs.count(p->func)) { *err = "unknown function '" + p->func + "' (inclusive, exclusive, count, mean, min, max, std, share, self_share)"; return false; }
  if (p->metric.empty()) { *err = "condition '" + s + "' names no metric"; return false; }
  std::string rest = Trim(s.substr(close + 1));
  size_t oplen = (rest.size() >= 2 && (rest[1] == '=')) ? 2 : 1;
  p->op = rest.substr(0, oplen);
  if (!kOps.count(p->op)) { *err = "condition '" + s + "' needs one of > >= < <= == !="; return false; }
  std::string value = Trim(rest.substr(oplen));
  char* end = nullptr;
  p->value = std::strtod(value.c_str(), &end);
  if (end == value.c_str()) { *err = "condition '" + s + "' has no number to compare with"; return false; }
  std::string unit = Trim(std::string(end));
  if (unit == "%") { p->percent = true; p->value /= 100.0; }
  else if (unit == "ns" || unit.empty()) {}
  else if (unit == "us") p->value *= 1e3;
  else if (unit == "ms") p->value *= 1e6;
  else if (unit == "s") p->value *= 1e9;
  else { *err = "unknown unit '" + unit + "' (%, ns, us, ms, s)"; return false; }
  if (p->percent && (p->func == "count" || p->func == "mean" || p->func == "min" || p->func == "max" || p->func == "std")) {
    *err = "% applies to inclusive, exclusive, share or self_share, not to " + p->func;
    return false;
  }
  p->line = line;
  return true;
}

}  // namespace

std::vector<UserRule> ParseRuleFile(const std::string& file, const std::string& text, std::vector<std::string>* errors) {
  std::vector<UserRule> rules;
  UserRule cur;
  bool in_rule = false, bad = false;
  auto error = [&](int line, const std::string& msg) {
    errors->push_back(file + ":" + std::to_string(line) + ": " + msg);
    bad = true;
  };
  auto finish = [&]() {
    if (!in_rule) return;
    if (!bad && cur.when.empty()) error(cur.line, "rule '" + cur.id + "' has no 'when' condition");
    if (!bad && cur.message.empty()) error(cur.line, "rule '" + cur.id + "' has no 'message'");
    if (!bad) rules.push_back(cur);
  };
  std::set<std::string> ids;
  int line = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string raw = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    ++line;
    std::string s = Trim(raw);
    if (s.empty() || s[0] == '#') continue;
    if (s[0] == '[') {
      finish();
      cur = UserRule{};
      bad = false;
      in_rule = true;
      cur.file = file;
      cur.line = line;
      if (s.back() != ']' || s.rfind("[rule", 0) != 0) { error(line, "expected [rule ID]"); continue; }
      cur.id = Trim(s.substr(5, s.size() - 6));
      if (cur.id.empty() || cur.id.find_first_of(" \t") != std::string::npos) { error(line, "a rule id is one word: [rule my-rule]"); continue; }
      if (!ids.insert(cur.id).second) error(line, "rule '" + cur.id + "' is defined twice");
      continue;
    }
    if (!in_rule) { error(line, "expected [rule ID] before settings"); in_rule = true; cur.line = line; continue; }
    size_t eq = s.find('=');
    if (eq == std::string::npos) { error(line, "expected KEY = VALUE"); continue; }
    std::string key = Trim(s.substr(0, eq)), value = Trim(s.substr(eq + 1));
    std::string err;
    if (key == "severity") {
      if (value != "note" && value != "warning" && value != "error") error(line, "severity is note, warning or error, not '" + value + "'");
      cur.severity = value;
    } else if (key == "path") {
      if (!ParsePath(value, &cur, &err)) error(line, err);
    } else if (key == "when") {
      size_t start = 0;
      for (;;) {
        size_t andpos = value.find(" and ", start);
        Predicate p;
        if (!ParsePredicate(value.substr(start, andpos == std::string::npos ? std::string::npos : andpos - start), line, &p, &err)) {
          error(line, err);
          break;
        }
        cur.when.push_back(p);
        if (andpos == std::string::npos) break;
        start = andpos + 5;
      }
    } else if (key == "message") {
      cur.message = value;
    } else if (key == "max_findings") {
      char* end = nullptr;
      long v = std::strtol(value.c_str(), &end, 10);
      if (end == value.c_str() || *end || v <= 0) error(line, "max_findings is a positive whole number");
      else cur.max_findings = size_t(v);
    } else {
      error(line, "unknown setting '" + key + "' (severity, path, when, message, max_findings)");
    }
  }
  finish();
  return rules;
}

}  // namespace strata::core::detail
