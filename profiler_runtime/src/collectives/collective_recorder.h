// Collectives on the host side: each communication call a framework plugin reports (torch:
// a process group's work, from its issue inside `c10d::allreduce_` to its completion) becomes a
// call of a typed site in the profile's collectives section (strata/format/layout.h), placed at
// the tree node that issued it (the innermost operator under the Python line), and adds its
// time to metric `collective_time` there.
//
// Issue runs on the issuing thread (normal code: it takes the call path); Begin and End on any
// thread (torch 1.13's gloo begins and completes a work on its worker thread). They only queue;
// the aggregator's drain resolves the path, matches begin and end by key and updates the sites
// and calls. A call's time runs from its issue to its completion.
#pragma once

#include <cstdint>
#include <string>

namespace strata::rt {
class Aggregator;
}

namespace strata::rt::collectives {

struct CallInfo {
  std::string backend, name, dtype, group_name;  // name: the framework's ("all_reduce")
  uint64_t elements = 0, bytes = 0;
  int64_t seq = -1;         // the framework's sequence number; -1: none (issue order is used)
  uint32_t group_size = 0;  // 0: unknown
};

// Before the aggregator starts (and again in a forked child's new aggregator).
void Install(Aggregator* agg);
// A forked child: the parent's pending calls and counts are not its own.
void ResetInForkChild();

// The issuing thread, inside the communication operator (c10d::allreduce_): takes the call
// path. A work that begins later is matched to it: the newest issue of that collective on the
// beginning thread (the work began inside its operator), else the oldest pending one on any
// thread (a backend's worker runs works in issue order); without one, Begin takes its own path.
void Issue(const char* op_name);
void Begin(uint64_t key, const CallInfo& info);
void End(uint64_t key);

// The calls listed individually (STRATA_COLLECTIVE_CALLS, default 100000; past it, calls only
// count in their site).
uint64_t CallLimit();
// Meta `collectives`: "recorded: N calls at M sites (K in flight)" or "none seen".
std::string StatusLine();

}  // namespace strata::rt::collectives
