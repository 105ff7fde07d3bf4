// Process-wide interning for operator frames: operator names (Python code locations (file,
// qualified name) are python/code_names.h; the two functions below forward there). Normal code
// only (a mutex); the SIGPROF handler never calls in here, it copies words that already hold
// the ids. Also keeps the counters and the status line behind the profile's meta "operators".
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata::rt::ops {

// Name id 0 = "<operator>"; code id 0 = unknown ("<?>", "<?>").
uint32_t InternName(std::string_view name);
uint32_t InternCode(std::string_view file, std::string_view qualname);
// Aggregator side (normal code): false for an unknown id.
bool NameOf(uint32_t id, std::string* name);
bool CodeOf(uint32_t id, std::string* file, std::string* qualname);

struct Counters {
  std::atomic<uint64_t> pushes{0};
  std::atomic<uint64_t> forward_recorded{0};  // forward ops stored for their backward (they created its node)
  std::atomic<uint64_t> backward_linked{0};
  std::atomic<uint64_t> backward_unlinked{0};  // backward op whose forward was not found
  std::atomic<uint64_t> too_deep{0};           // pushes beyond the per-thread depth
  // What operators cost beyond the plugin's callback, for the launch-cost breakdown: entry
  // traces at outermost operators, and contexts (Python walk and merge, once per outermost
  // operator that needs one).
  std::atomic<uint64_t> entry_traces{0};
  std::atomic<uint64_t> entry_ns{0};
  std::atomic<uint64_t> contexts{0};
  std::atomic<uint64_t> context_ns{0};
  std::atomic<uint64_t> context_hits{0};        // contexts copied from the per-thread cache
  std::atomic<uint64_t> context_mismatches{0};  // verify mode: cached ones that differed
  // Cached contexts whose native frames no longer stood on the stack (taken afresh), and fills
  // whose frames could not be checked in place (not cached).
  std::atomic<uint64_t> context_checks_failed{0};
  std::atomic<uint64_t> context_uncheckable{0};
};
Counters& GetCounters();

// Plugin state for meta "operators" (set by the loader, read at the write).
void SetPluginStatus(const std::string& status, bool recording);
// A plugin waiting for the program's first autograd graph: while still_waiting() says 1 at the write,
// the status line is `waiting`; after, the status set with SetPluginStatus.
void SetPluginWaiting(const std::string& waiting, int (*still_waiting)(void));
// "recorded: torch 2.11.0 (...); N operator calls, ..." or "not recorded: <why>".
std::string StatusLine();
// Held across fork() (pthread_atfork) so a forked child never inherits the registry mid-change.
void LockForFork();
void UnlockAfterFork();

}  // namespace strata::rt::ops
