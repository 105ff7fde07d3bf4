// What each sampled thread was for: its "role" is the outermost Python function of its samples
// that is not thread machinery (threading.py, concurrent/futures), e.g. a data loader's
// load function or the main script's <module>. At the end every thread adds 1 to the metric
// `threads` at the node of its role (the line it spent most samples under), so inclusive
// `threads` counts threads per subtree and the analyzers can compare it with the cores
// (meta `cpu_cores`): more loader threads than cores is a finding. Aggregator thread only.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cct/cct.h"

namespace strata::rt {

class ThreadRoles {
 public:
  // A Python frame was created: is it thread machinery or a possible role?
  void ClassifyPython(uint32_t frame, std::string_view file, std::string_view name);
  // One sample of thread slot `slot` (ids root first).
  void Note(uint32_t slot, const uint32_t* ids, int n, double value, Cct::Unlocked& u);
  // The slot's thread is gone (its slot is recycled): keep its role.
  void Retire(uint32_t slot);
  // Final drain: add `threads` for every thread seen (retired and live).
  void Emit(Cct::Unlocked& u);
  // A checkpoint: the role nodes Emit would count now, without consuming them.
  std::vector<uint32_t> Peek() const;

 private:
  struct Role { uint32_t node = 0; double value = 0; };
  struct Thread {
    std::unordered_map<uint32_t, double> by_function;          // function -> samples value
    std::unordered_map<uint32_t, Role> best_node;              // function -> its heaviest node
    std::unordered_map<uint32_t, double> by_node;              // role node -> samples value
  };
  std::unordered_map<uint32_t, int32_t> frame_function_;       // frame -> function id, -1 machinery
  std::unordered_map<uint64_t, uint32_t> function_ids_;        // hash(file, name) -> function id
  std::unordered_map<uint32_t, Thread> live_;                  // slot -> its thread so far
  std::vector<uint32_t> done_;                                  // role nodes of retired threads
  static uint32_t RoleNode(const Thread& t);
};

}  // namespace strata::rt
