// GPU collection limited to what the program brackets with cudaProfilerStart / cudaProfilerStop
// (torch.cuda.profiler.start() / stop(), cuProfilerStart / Stop): STRATA_CAPTURE_RANGE=
// cudaProfilerApi, as Nsight Systems' --capture-range. Collection starts switched off (API
// callbacks, activity kinds, operators: the switch sampled tracing uses) and follows the
// program's calls; CPU samples are taken all along. Nothing is scaled: what is outside the
// ranges is simply not in the GPU part of the profile, and the gpu line says so. With sampled
// tracing (STRATA_GPU_SAMPLING) the windows run inside the ranges, each range starting with an
// open window, and what the windows record is scaled as without ranges.
// Outside a range CUPTI is detached (cuptiFinalize) once the program's cudaProfilerStart is
// known to pass through the runtime's interposer (interpose/cuda_profiler_api.cpp), which then
// attaches again before the next start: a detached CUPTI sees no API call. A program whose
// cudart is linked statically calls it past the interposer; CUPTI then stays attached and is
// switched off instead.
#pragma once

#include <cupti.h>

#include <string>

namespace strata::rt::gpu {

class CuptiSession;

// Reads STRATA_CAPTURE_RANGE; true when collection follows the profiler API. A bad value is
// said once and collects everything.
bool CaptureRangeRequested();
// Enables the profiler API callbacks (never switched off) and switches collection off until
// the program's first start.
void StartCaptureRange(CuptiSession* s);
// Enables the cudaProfilerStart/Stop callbacks (again after an attach).
void EnableProfilerApiCallbacks(CuptiSession* s);
// From the interposed cudaProfilerStart / cuProfilerStart, before the real call: attaches
// CUPTI again if a range's end detached it.
void BeforeProfilerStart();
// From the interposed cudaProfilerStop / cuProfilerStop, before the real call: closes the range
// (CUPTI may be detached by a closed sampled-tracing window and not see the call).
void BeforeProfilerStop();
// From the API callback: true when the call was cudaProfilerStart/Stop (handled here).
bool OnProfilerApi(CuptiSession* s, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
// "; captured between cudaProfilerStart and cudaProfilerStop (N ranges)" for the gpu line.
std::string CaptureRangeStatus(const CuptiSession& s);

}  // namespace strata::rt::gpu
