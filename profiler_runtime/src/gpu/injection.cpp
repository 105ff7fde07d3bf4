// Activation through the CUDA driver's injection hook: the runtime's constructor exports
// CUDA_INJECTION64_PATH=<this library> (unless another tool holds it); the driver loads that
// path at cuInit and calls the exported InitializeInjection, which starts the CUPTI session.
// Also the rest of gpu.h's entry points that act on the session (fork, exit, dlopen).
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <cstring>
#include <string>

#include "gpu/cupti/cupti_session.h"
#include "gpu/cupti/pc_sampling.h"
#include "gpu/cupti/region_capture.h"
#include "gpu/gpu.h"
#include "runtime_state.h"

namespace strata::rt::gpu {
namespace {

std::string OurLibraryPath() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&OurLibraryPath), &info) || !info.dli_fname) return "";
  char real[PATH_MAX];
  if (realpath(info.dli_fname, real)) return real;
  return info.dli_fname;
}

bool SamePath(const char* a, const std::string& b) {
  char real[PATH_MAX];
  return realpath(a, real) ? b == real : b == a;
}

void Inject() {
  CuptiSession* s = CuptiSession::Get();
  if (!state::Active() || !s) return;  // a child, or STRATA_OUTPUT unset
  int expected = CuptiSession::kNotInjected;
  if (!s->phase.compare_exchange_strong(expected, CuptiSession::kCollecting)) return;  // once
  if (!s->taken_by.empty()) { s->phase.store(CuptiSession::kFailed); return; }
  s->Start();
}

}  // namespace

void OnRuntimeStart(Aggregator* agg) {
  CuptiSession* s = CuptiSession::Create(agg);
  s->join.inductor().Arm();  // before Python reads its environment
  std::string self = OurLibraryPath();
  const char* cur = getenv("CUDA_INJECTION64_PATH");
  if (cur && *cur) {
    if (!SamePath(cur, self)) s->taken_by = cur;
  } else if (!self.empty()) {
    setenv("CUDA_INJECTION64_PATH", self.c_str(), 1);
  }
}

void OnForkChild() {
  if (CuptiSession* s = CuptiSession::Get()) s->collecting.store(false);
}

void OnLibraryLoaded(const char* file) {
  if (CuptiSession* s = CuptiSession::Get()) s->join.xla().OnLibraryLoaded(file);
}

void FlushForExit() {
  CuptiSession* s = CuptiSession::Get();
  if (!s) return;
  if (s->collecting.load() && s->api && s->options.pc_sampling) pcs::FinishForExit(s->api);
  if (s->collecting.load() && s->options.regions) regions::Harvest(true);
  if (s->collecting.load() && s->api) s->FlushAll();
}

}  // namespace strata::rt::gpu

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  strata::rt::gpu::Inject();
  return 1;
}
