// The replay engine behind `strata replay`: restores a snapshot's memory in a fresh process,
// launches the snapped kernel alone, compares its outputs with the snapped ones and times it.
// Loads libcuda at run time (no link), so the CLI runs on machines without a GPU too.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "strata/replay/compare.h"

namespace strata::replay {

// What the L2 holds when a timed launch starts (the run's launch found there what the kernels
// before it left: kPrelude replays the one just before it; the others bound it from both sides).
enum class L2State {
  kAsRestored,  // after the restore copy: its last lines resident and dirty (written back during the launch)
  kClean,       // after the restore, a scratch read twice the L2's size: the inputs come from DRAM, nothing to write back
                // (launched alone under an instrument, the scratch read is left out: as restored)
  kBackToBack,  // restored once, then launched again and again: the L2 holds what the previous launch left
  kPrelude,     // after the restore, the launches before it in the run (the snapshot's preludes) run first
};

struct ReplayOptions {
  std::string file;
  int repeat = 20;            // timed launches, each after a restore of the before-state (but kBackToBack)
  double rtol = 0, atol = 0;  // 0 and 0: bit-exact
  std::string dtype = "f32";  // how differing bytes are read for the tolerance: f32 | f16 | bf16
  bool any_driver = false;    // replay a snapshot taken under another driver version
  bool relocate = false;      // place regions anywhere and patch the known pointers
  // Clean by default: on the H200 it timed a cuDNN convolution, a Triton kernel and a DRAM-bound
  // loop within 2.2% of their in-run times (CUPTI on both sides), where the restore copy's dirty
  // lines made the Triton kernel 11-14% slower.
  L2State l2 = L2State::kClean;
  // The replay's own kernels around the timed launches (a wait kernel that queues each one so
  // that the launch latency is hidden; an empty kernel timed the same way as the floor). Off
  // when an instrument records the replay, which should see the snapped kernel only.
  bool timing_kernels = true;
};

struct RegionOutcome {
  uint32_t index = 0;
  uint64_t base = 0, size = 0;
  bool saved = true;
  RegionDiff diff;
};

struct ReplayResult {
  std::string kernel;
  std::string device;
  bool same_addresses = true;     // false: relocated (pointers patched)
  std::vector<std::string> warnings;
  std::vector<RegionOutcome> regions;
  bool matches = false;           // every saved region equal (or within the tolerance)
  std::vector<double> times_ns;   // per timed launch
  double min_ns = 0, median_ns = 0;
  double floor_median_ns = 0;     // an empty kernel timed the same way: what the events add (0: not measured)
  uint64_t in_run_ns = 0;
  std::vector<std::string> prelude_kernels;  // kPrelude: the kernels launched before each timed launch, in order
  uint32_t prelude_changed_regions = 0;      // kPrelude: regions they changed on the snapped state
  std::string l2_note;                       // the L2 state asked for could not be had: why
};

class ReplayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws snapshot::Error (bad file) or ReplayError (device, driver, memory): one line each.
ReplayResult Replay(const ReplayOptions& options, const std::function<void(const std::string&)>& progress);

}  // namespace strata::replay
