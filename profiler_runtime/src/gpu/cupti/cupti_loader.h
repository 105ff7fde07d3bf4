// Loads libcupti at run time (dlopen, never linked) and resolves the entry points the collector
// uses. Types come from the CUPTI headers only.
#pragma once

#include <cupti.h>
#include <cupti_pcsampling.h>

#include <string>

namespace strata::rt::gpu {

struct CuptiApi {
  void* handle = nullptr;
  std::string path;
  CUptiResult (*Subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*Unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                CUpti_CallbackId) = nullptr;
  CUptiResult (*EnableDomain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
  CUptiResult (*ActivityEnable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*ActivityDisable)(CUpti_ActivityKind) = nullptr;  // optional (sampled tracing)
  CUptiResult (*Finalize)() = nullptr;  // optional (sampled tracing detaches between windows)
  CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                           CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*ActivityFlushAll)(uint32_t) = nullptr;
  CUptiResult (*ActivityFlushPeriod)(uint32_t) = nullptr;  // optional
  CUptiResult (*ActivityGetNextRecord)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*ActivityGetNumDroppedRecords)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*GetResultString)(CUptiResult, const char**) = nullptr;
  CUptiResult (*GetVersion)(uint32_t*) = nullptr;
  CUptiResult (*GetTimestamp)(uint64_t*) = nullptr;  // optional (the timeline's clock relation)
  // PC sampling (cupti_pcsampling.h); optional: null when this CUPTI lacks them.
  CUptiResult (*PCSamplingEnable)(CUpti_PCSamplingEnableParams*) = nullptr;
  CUptiResult (*PCSamplingDisable)(CUpti_PCSamplingDisableParams*) = nullptr;
  CUptiResult (*PCSamplingGetData)(CUpti_PCSamplingGetDataParams*) = nullptr;
  CUptiResult (*PCSamplingSetConfigurationAttribute)(CUpti_PCSamplingConfigurationInfoParams*) = nullptr;
  CUptiResult (*PCSamplingGetNumStallReasons)(CUpti_PCSamplingGetNumStallReasonsParams*) = nullptr;
  CUptiResult (*PCSamplingGetStallReasons)(CUpti_PCSamplingGetStallReasonsParams*) = nullptr;
  CUptiResult (*GetCubinCrc)(CUpti_GetCubinCrcParams*) = nullptr;

  std::string ResultText(CUptiResult r) const;
};

// Tries STRATA_CUPTI_PATH, then libcupti next to the process's libcudart (and the pip wheel
// layout nvidia/cuda_cupti/lib), then the loader's search path, then $CUDA_HOME and the
// standard CUDA folders. On failure `why` lists what was tried.
bool LoadCupti(CuptiApi* api, std::string* why);

}  // namespace strata::rt::gpu
