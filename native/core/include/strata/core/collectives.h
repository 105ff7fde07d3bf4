// A profile's collectives (the format's collectives section, docs/profile-format.md): each
// communication call site with its totals, and the calls listed one by one, with the Python
// line that issued them. What the run view's collective statistics, straggler and exposed
// communication rules read; nothing here parses a name back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "strata/format/layout.h"

namespace strata::core {

struct CollectiveSite {
  uint32_t node = 0;  // stored tree node that issued it (View::landing maps it into a view)
  strata::format::CollectiveOp op = strata::format::CollectiveOp::kOther;
  std::string name;        // the framework's ("all_reduce")
  std::string backend;     // "gloo", "nccl", ...
  std::string dtype;       // "Float", ... ("" none)
  std::string group_name;  // "" unknown
  uint32_t group_size = 0;  // 0 unknown
  bool on_device = false;            // a communication kernel's (device side), else the host call
  bool seq_is_issue_order = false;   // calls' seq: this process's issue order, not the framework's
  uint64_t elements = 0, bytes = 0;  // per call
  uint64_t count = 0, total_ns = 0, min_ns = 0, max_ns = 0;  // completed calls, issue to completion
  // The node's own frame (the operator, e.g. "c10d::allreduce_"); the innermost Python frame at
  // or above it (torch's own all_reduce in distributed_c10d.py); and the innermost of the user's
  // Python frames (not an installed package, the standard library or frozen code, as the views
  // classify frames): the line the user wrote that issued the call. "" / 0 when there is none.
  std::string frame_name;
  std::string python_file, python_function;
  uint32_t python_line = 0;
  std::string user_file, user_function;
  uint32_t user_line = 0;
};

struct CollectiveCall {
  uint64_t start_ns = 0;  // issue, CLOCK_MONOTONIC of the recording process
  uint64_t end_ns = 0;    // completion; 0 when it had not completed when the profile was written
  uint64_t seq = 0;       // sequence number (see CollectiveSite::seq_is_issue_order)
  uint32_t site = 0;      // index into Collectives::sites
};

struct Collectives {
  bool present = false;  // the profile has the section (in a version this core reads)
  std::vector<CollectiveSite> sites;
  std::vector<CollectiveCall> calls;  // issue order
  uint64_t calls_dropped = 0, call_limit = 0;
  // Monotonic -> wall clock: meta start_unix_ns - start_monotonic_ns (the pair the runtime read
  // together at start); has_wall_clock false when the profile lacks the pair.
  bool has_wall_clock = false;
  int64_t unix_minus_monotonic_ns = 0;
};

// Throws Error (one line) for a file that does not parse or a section of a newer version.
Collectives ReadCollectives(const std::string& profile_path);
Collectives ReadCollectives(const unsigned char* data, size_t size);

// "all_reduce", "all_gather", "broadcast", "reduce_scatter", "reduce", "gather", "scatter",
// "all_to_all", "barrier", "send", "recv", "other".
const char* CollectiveOpName(strata::format::CollectiveOp op);

}  // namespace strata::core
