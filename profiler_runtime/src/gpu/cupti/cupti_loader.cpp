#include "gpu/cupti/cupti_loader.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace strata::rt::gpu {
namespace {

std::string DirOf(const std::string& p) {
  size_t s = p.rfind('/');
  return s == std::string::npos ? std::string(".") : p.substr(0, s);
}

// Folder of the libcudart this process loaded (the CUPTI that matches the program's CUDA).
std::string CudartDir() {
  static const char* kSyms[] = {"cudaGetDeviceCount", "cudaLaunchKernel", "cudaRuntimeGetVersion"};
  for (const char* s : kSyms) {
    void* f = dlsym(RTLD_DEFAULT, s);
    Dl_info info;
    if (f && dladdr(f, &info) && info.dli_fname && std::string(info.dli_fname).find("libcudart") != std::string::npos)
      return DirOf(info.dli_fname);
  }
  return "";
}

template <typename F>
bool Sym(void* h, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  return *out != nullptr;
}

}  // namespace

std::string CuptiApi::ResultText(CUptiResult r) const {
  const char* s = nullptr;
  if (GetResultString && GetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
  return "CUPTI error " + std::to_string(int(r));
}

bool LoadCupti(CuptiApi* api, std::string* why) {
  std::vector<std::string> tries;
  if (const char* p = getenv("STRATA_CUPTI_PATH"); p && *p) tries.push_back(p);
  std::string cudart = CudartDir();
  if (!cudart.empty()) {
    tries.push_back(cudart + "/libcupti.so.13");
    tries.push_back(cudart + "/libcupti.so");
    tries.push_back(cudart + "/../../cuda_cupti/lib/libcupti.so.13");  // pip nvidia-cuda-* wheels
    tries.push_back(cudart + "/../../cuda_cupti/lib/libcupti.so.12");
    tries.push_back(cudart + "/../extras/CUPTI/lib64/libcupti.so");
  }
  tries.push_back("libcupti.so.13");
  tries.push_back("libcupti.so.12");
  tries.push_back("libcupti.so");
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* h = getenv(env); h && *h) {
      tries.push_back(std::string(h) + "/lib64/libcupti.so");
      tries.push_back(std::string(h) + "/extras/CUPTI/lib64/libcupti.so");
      tries.push_back(std::string(h) + "/targets/x86_64-linux/lib/libcupti.so");
    }
  }
  tries.push_back("/usr/local/cuda/lib64/libcupti.so");
  tries.push_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so");
  tries.push_back("/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so");
  std::string errors;
  for (const std::string& t : tries) {
    void* h = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    bool ok = Sym(h, "cuptiSubscribe", &api->Subscribe) && Sym(h, "cuptiUnsubscribe", &api->Unsubscribe) &&
              Sym(h, "cuptiEnableCallback", &api->EnableCallback) &&
              Sym(h, "cuptiEnableDomain", &api->EnableDomain) &&
              Sym(h, "cuptiActivityEnable", &api->ActivityEnable) &&
              Sym(h, "cuptiActivityRegisterCallbacks", &api->ActivityRegisterCallbacks) &&
              Sym(h, "cuptiActivityFlushAll", &api->ActivityFlushAll) &&
              Sym(h, "cuptiActivityGetNextRecord", &api->ActivityGetNextRecord) &&
              Sym(h, "cuptiActivityGetNumDroppedRecords", &api->ActivityGetNumDroppedRecords) &&
              Sym(h, "cuptiGetResultString", &api->GetResultString) && Sym(h, "cuptiGetVersion", &api->GetVersion);
    if (!ok) {
      errors += " " + t + " (missing entry points)";
      dlclose(h);
      continue;
    }
    Sym(h, "cuptiActivityFlushPeriod", &api->ActivityFlushPeriod);
    Sym(h, "cuptiActivityDisable", &api->ActivityDisable);
    Sym(h, "cuptiFinalize", &api->Finalize);
    Sym(h, "cuptiGetTimestamp", &api->GetTimestamp);
    Sym(h, "cuptiPCSamplingEnable", &api->PCSamplingEnable);
    Sym(h, "cuptiPCSamplingDisable", &api->PCSamplingDisable);
    Sym(h, "cuptiPCSamplingGetData", &api->PCSamplingGetData);
    Sym(h, "cuptiPCSamplingSetConfigurationAttribute", &api->PCSamplingSetConfigurationAttribute);
    Sym(h, "cuptiPCSamplingGetNumStallReasons", &api->PCSamplingGetNumStallReasons);
    Sym(h, "cuptiPCSamplingGetStallReasons", &api->PCSamplingGetStallReasons);
    Sym(h, "cuptiGetCubinCrc", &api->GetCubinCrc);
    api->handle = h;
    char path[4096] = "";
    if (dlinfo(h, RTLD_DI_ORIGIN, path) == 0) {
      std::string base = t.substr(t.rfind('/') == std::string::npos ? 0 : t.rfind('/') + 1);
      api->path = std::string(path) + "/" + base;
    } else {
      api->path = t;
    }
    return true;
  }
  *why = "no libcupti found (set STRATA_CUPTI_PATH; tried next to libcudart" +
         std::string(cudart.empty() ? " [not loaded]" : " [" + cudart + "]") +
         ", the loader path, $CUDA_HOME, /usr/local/cuda)" + errors;
  return false;
}

}  // namespace strata::rt::gpu
