// CUPTI PC sampling (cupti_pcsampling.h): which instructions the warps of each kernel were
// stalled at, and why. Off unless STRATA_PC_SAMPLING is set (strata record --pc-sampling):
//   STRATA_PC_SAMPLING=continuous (or 1)  kernels run concurrently as usual; a PC's samples
//                                          are shared among the call paths that launched its
//                                          function in proportion to their GPU time
//   STRATA_PC_SAMPLING=serialized          CUPTI serializes kernels and tags each PC with the
//                                          launch's correlation id: exact per call path
//   STRATA_PC_SAMPLING_PERIOD=N            2^N cycles between samples per SM (5..31; default
//                                          14; 0 = CUPTI's own default)
//   STRATA_PC_SAMPLING_HW_BUFFER_MB=N      CUPTI's hardware buffer (default 64 MB: CUPTI's own
//                                          512 MB was most of the process's memory growth;
//                                          0 = CUPTI's); when it fills, samples are lost and
//                                          StatusLine says so
//   STRATA_PC_SAMPLING_DETAIL=N            (kernel call path, instruction) pairs that get a pc
//                                          frame of their own, the heaviest first (default
//                                          4096; 0 = all); the others' samples are counted on
//                                          their kernel node (gpu/activity/pc_detail.h)
//   STRATA_PC_SAMPLING_CUBINS=whole        keep whole cubins in the profile (default: sampled,
//                                          the code of the sampled functions and their callees)
// Samples are kept per (cubin, function, PC offset, launch) with a count per stall reason, so
// their memory grows with the code that ran, not with run length. Module images are put aside
// as modules load (cubin_store.h: a temporary file, not memory) and, at the end, the ones with
// samples are cut down to the sampled functions' code (native/cubin_trim) for the profile.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>
#include <vector>

namespace strata::rt::gpu {
struct CuptiApi;
}

namespace strata::rt::gpu::pcs {

// Everything PC sampling keeps for the process; the CUPTI session owns the one instance.
struct State;
State* NewState();

// Reads the environment; false when sampling is off. A bad value turns sampling off and
// leaves the reason for StatusLine.
bool Configure();
bool On();

// CUPTI resource callbacks (any thread).
void OnContextCreated(CuptiApi* api, CUcontext ctx);
void OnModuleLoaded(CuptiApi* api, const void* cubin, size_t size);
void OnContextDestroying(CuptiApi* api, CUcontext ctx);  // takes its data, disables
// Takes what CUPTI has (all contexts). Called at synchronizing API exits (and after each
// launch when serialized), from the target's threads; never synchronizes the device.
void Collect(CuptiApi* api);
// Normal exit: takes the remaining data and disables sampling on every context.
void FinishForExit(CuptiApi* api);

struct PcRecord {
  uint64_t crc = 0;              // cubin CRC (as cuptiGetCubinCrc)
  uint64_t pc = 0;               // offset inside the function
  const std::string* function = nullptr;  // mangled name (interned, lives for the process)
  uint32_t corr = 0;             // launch correlation id (serialized mode), else 0
  std::vector<uint32_t> counts;  // by stall id (StallNames()); may be shorter than the names
};
// Moves the accumulated records out (aggregator thread, final drain).
std::vector<PcRecord> TakeRecords();
// Short stall reason names by stall id ("long_scoreboard", "wait", ...).
std::vector<std::string> StallNames();
// The cubin with this CRC cut down to `functions` (mangled names) and their callees, or whole
// when trimming is off or fails (said in StatusLine); "" when the module was not kept.
std::string SampledCode(uint64_t crc, const std::vector<std::string>& functions);
// STRATA_PC_SAMPLING_DETAIL (0: no limit).
size_t DetailBudget();
// What the profile gave pc frames (gpu/activity/pc_detail.h), for the status line.
struct PcDetailNote {
  size_t pairs = 0, pairs_itemized = 0;  // (kernel node, instruction) pairs
  size_t sites = 0, sites_itemized = 0;  // instructions
  double samples = 0, samples_itemized = 0;
  double site_samples_itemized = 0;  // all samples of the instructions with a pc frame
};
void NoteDetail(const PcDetailNote& note);
// Value of the profile's meta "pc_sampling".
std::string StatusLine();

}  // namespace strata::rt::gpu::pcs
