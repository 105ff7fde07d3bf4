// The table behind StallReason(). Meanings follow CUPTI's smsp__pcsamp_warps_issue_stalled_*
// descriptions and Nsight Compute's "Warp State" section.
#include "stall_reasons.h"

#include <map>

namespace strata::core::detail {

namespace {

constexpr StallClass L = StallClass::kLatency;

const std::map<std::string, StallReasonInfo>& Table() {
  static const std::map<std::string, StallReasonInfo> table = {
      // Issuing or ready to issue, or a saturated math pipe: the kernel is throughput-bound there,
      // which is the goal of latency tuning, not a problem at a line.
      {"selected", {StallClass::kThroughput, "", ""}},
      {"not_selected", {StallClass::kThroughput, "", ""}},
      {"math_pipe_throttle", {StallClass::kThroughput, "", ""}},
      {"sample_count", {StallClass::kNotAReason, "", ""}},
      {"samples_data_dropped", {StallClass::kNotAReason, "", ""}},

      {"long_scoreboard",
       {L, "It waits for a global or local memory result: coalesce the loads, reuse data through shared memory or "
           "registers, issue independent loads early (prefetch, unroll) so their latency overlaps, or raise occupancy; "
           "local memory here means register spills",
        "the load"}},
      {"short_scoreboard",
       {L, "It waits for a shared-memory, special-function (sin, exp, rsqrt) or shuffle result: remove shared-memory "
           "bank conflicts, use fewer special-function ops, and move the use further from the producer",
        "the shared-memory load, special-function op or shuffle"}},
      {"wait",
       {L, "It waits on a fixed-latency dependency, usually one math result feeding the next: break the chain with "
           "independent work (several accumulators, unrolling) or raise occupancy",
        "the previous math instruction"}},
      {"barrier",
       {L, "Warps wait at a barrier (__syncthreads) for slower warps of their block: balance the work between warps "
           "before it, use fewer barriers or smaller blocks",
        ""}},
      {"membar",
       {L, "It waits on a memory fence (__threadfence, ordered atomics): use fewer fences or a narrower scope "
           "(block instead of device)",
        ""}},
      {"mio_throttle",
       {L, "The memory-input/output queue is full (shared memory, special functions, shuffles): issue fewer, wider "
           "shared-memory accesses (vectorized) and fewer special-function ops",
        ""}},
      {"lg_throttle",
       {L, "The local/global memory queue is full: issue fewer, wider accesses (float4), combine small ones, and "
           "check for register spills to local memory",
        ""}},
      {"tex_throttle",
       {L, "The texture unit's queue is full: fewer texture or surface fetches, or interleave them with other work",
        ""}},
      {"drain",
       {L, "Warps wait at exit for their stores to drain: write less, or coalesce the stores", ""}},
      {"imc_miss",
       {L, "The immediate-constant cache missed: keep data that threads index differently out of __constant__, "
           "keep the constant working set small",
        ""}},
      {"branch_resolving",
       {L, "It waits for a branch target or a divergent branch to resolve: make conditions uniform per warp, use "
           "selects instead of small branches",
        ""}},
      {"no_instructions",
       {L, "The instruction cache missed or a branch left nothing to issue: shrink the hot code (less unrolling, "
           "fewer instantiations), or raise occupancy",
        ""}},
      {"sleeping",
       {L, "Warps sleep (__nanosleep, or all threads waiting in a spin loop): check spin-waits and their back-off",
        ""}},
      {"dispatch_stall",
       {L, "The dispatcher could not issue (pipeline conflict): rare; look at the line's SASS for register-bank "
           "conflicts or unusual instructions",
        ""}},
      {"warpgroup_arrive",
       {L, "Warps wait at a warpgroup arrive (wgmma): deepen the asynchronous MMA pipeline so loads and MMAs overlap",
        ""}},
      {"misc", {L, "A miscellaneous hardware reason: look at the line's SASS", ""}},
  };
  return table;
}

}  // namespace

StallReasonInfo StallReason(const std::string& reason) {
  auto it = Table().find(reason);
  if (it != Table().end()) return it->second;
  return {L, "Look up this reason in Nsight Compute's Warp State documentation", ""};
}

}  // namespace strata::core::detail

namespace strata::core {

std::optional<StallClass> StallMetricClass(const std::string& metric_name) {
  if (metric_name.rfind("stall_", 0) != 0) return std::nullopt;
  return detail::StallReason(metric_name.substr(6)).kind;
}

const char* StallClassName(StallClass c) {
  switch (c) {
    case StallClass::kLatency: return "latency";
    case StallClass::kThroughput: return "throughput";
    case StallClass::kNotAReason: return "not_a_reason";
  }
  return "latency";
}

}  // namespace strata::core
