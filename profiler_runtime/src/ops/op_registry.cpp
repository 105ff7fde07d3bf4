#include "ops/op_registry.h"

#include <cstdio>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "python/code_names.h"

namespace strata::rt::ops {
namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, uint32_t> name_ids;
  std::deque<std::string> names{"<operator>"};
  std::string plugin_status = "not recorded: torch not loaded";
  std::string waiting_status;               // SetPluginWaiting
  int (*still_waiting)(void) = nullptr;
  bool recording = false;
};

// Leaked on purpose: used until the last write, after static destructors may have run.
Registry& R() {
  static Registry* r = new Registry();
  return *r;
}

}  // namespace

uint32_t InternName(std::string_view name) {
  Registry& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.name_ids.find(std::string(name));
  if (it != r.name_ids.end()) return it->second;
  uint32_t id = uint32_t(r.names.size());
  r.names.emplace_back(name);
  r.name_ids.emplace(std::string(name), id);
  return id;
}

uint32_t InternCode(std::string_view file, std::string_view qualname) {
  return python::InternCode(file, qualname);
}

bool NameOf(uint32_t id, std::string* name) {
  Registry& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  if (id >= r.names.size()) return false;
  *name = r.names[id];
  return true;
}

bool CodeOf(uint32_t id, std::string* file, std::string* qualname) {
  return python::CodeOf(id, file, qualname);
}

Counters& GetCounters() {
  static Counters* c = new Counters();
  return *c;
}

void SetPluginStatus(const std::string& status, bool recording) {
  Registry& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  r.plugin_status = status;
  r.recording = recording;
}

void SetPluginWaiting(const std::string& waiting, int (*still_waiting)(void)) {
  Registry& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  r.waiting_status = waiting;
  r.still_waiting = still_waiting;
}

std::string StatusLine() {
  Registry& r = R();
  std::string s;
  bool recording;
  int (*still_waiting)(void);
  {
    std::lock_guard<std::mutex> lock(r.mu);
    s = r.plugin_status;
    recording = r.recording;
    still_waiting = r.still_waiting;
    if (still_waiting && still_waiting()) return r.waiting_status;
  }
  if (!recording) return s;
  Counters& c = GetCounters();
  s += "; " + std::to_string(c.pushes.load()) + " operator calls, " +
       std::to_string(c.forward_recorded.load()) + " forward that created an autograd node, " +
       std::to_string(c.backward_linked.load()) + " backward linked to their forward, " +
       std::to_string(c.backward_unlinked.load()) + " backward unlinked";
  if (uint64_t d = c.too_deep.load()) s += ", " + std::to_string(d) + " nested too deep";
  auto each = [](uint64_t ns, uint64_t n) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%.2f", double(ns) / double(n) / 1000.0);
    return std::string(buf);
  };
  if (uint64_t n = c.entry_traces.load()) s += "; entry traces " + std::to_string(n) + ", " + each(c.entry_ns.load(), n) + " us each";
  if (uint64_t n = c.contexts.load()) {
    s += "; contexts " + std::to_string(n) + ", " + each(c.context_ns.load(), n) + " us each";
    if (uint64_t h = c.context_hits.load()) s += " (" + std::to_string(h) + " from the cache)";
    if (uint64_t d = c.context_mismatches.load()) s += ", " + std::to_string(d) + " cached contexts differed";
    if (uint64_t f = c.context_checks_failed.load())
      s += ", " + std::to_string(f) + " cached contexts whose native frames had changed";
    if (uint64_t u = c.context_uncheckable.load()) s += ", " + std::to_string(u) + " not cacheable";
  }
  return s;
}

void LockForFork() { R().mu.lock(); }
void UnlockAfterFork() { R().mu.unlock(); }

}  // namespace strata::rt::ops
