// In-kernel region buffers handed to instrumented launches (issue 7 part 2; the contract is in
// docs/regions.md "The buffer"). Off unless STRATA_REGIONS is set (strata record --regions):
//   STRATA_REGIONS=all | <substring of the kernel name>   which instrumented kernels to capture
//   STRATA_REGIONS_EVERY=N       capture every Nth launch of a kernel (default 1)
//   STRATA_REGIONS_MAX=N         launches captured per kernel at most (default 8)
//   STRATA_REGIONS_BYTES=N       buffer per captured launch (default 16 MiB)
//   STRATA_REGIONS_RECORD_CYCLES=C  per-record cost taken out by replay (default 0: none)
// A kernel is instrumented when its module has the device variable `strata_region_buffer`
// (regions.cuh). At the launch's driver-API entry the runtime zeroes a device buffer and points
// the module's descriptor at it on the launch's stream; at the exit it points the descriptor
// back at nothing (later launches record nothing) and queues the copy back with an event. The
// copies are taken where the program synchronizes anyway, and at exit. The kernel's signature
// never changes; a kernel whose module the runtime never sees (no runtime) records nothing.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>
#include <vector>

#include "strata/region_decoder/names.h"

namespace strata::rt::gpu::regions {

// Everything the capture keeps for the process; the CUPTI session owns the one instance.
struct State;
State* NewState();

bool Configure();  // reads the environment; false when off
bool On();
// True while the runtime itself calls the driver (its own calls are not the program's).
bool InternalCall();
// The launch callbacks (driver domain, cuLaunchKernel[Ex][_ptsz]), on the launching thread.
// `corr` is the correlation id the launch's kernel record will carry.
void OnLaunchEnter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, uint32_t corr, uint32_t outer);
void OnLaunchExit(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
// Takes the copies that have arrived (sync API exits); `wait` blocks for all (exit).
void Harvest(bool wait);

struct Capture {
  uint32_t corr = 0;            // the driver launch's correlation id
  uint32_t outer = 0;           // the outermost API call's (cudaLaunchKernel around it)
  int clock_khz = 0;            // the device's SM clock (a fallback rate for short lanes)
  std::string kernel;          // mangled, as CUPTI names it
  region_decoder::RegionNames names;  // the module's strata_region_names, parsed once
  std::vector<uint8_t> bytes;  // header + entries, as read back
};
std::vector<Capture> TakeCaptures();  // aggregator thread
// Whether a launch with this correlation id (driver launch or the API call around it) was
// handed a buffer: the collector keeps kernel nodes by id for those only.
bool Captured(uint32_t corr);
// Cycles one marker costs (calibration kernel or STRATA_REGIONS_RECORD_CYCLES); 0: no replay.
double RecordCostCycles();
std::string StatusLine();             // meta "regions"

}  // namespace strata::rt::gpu::regions
