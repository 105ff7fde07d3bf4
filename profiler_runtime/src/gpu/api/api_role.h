// What a tracked GPU API call is for, as far as attribution cares: the calls whose correlation
// id activity records will carry (launches, copies, sets, syncs) and the others (alloc / free).
#pragma once

#include <cstdint>
#include <cstring>

namespace strata::rt::gpu {

enum class ApiRole : uint8_t { kUnknown = 0, kLaunch = 1, kGraphLaunch, kCopy, kSet, kSync, kAlloc };

inline bool ExpectsActivity(ApiRole r) { return r >= ApiRole::kLaunch && r <= ApiRole::kSync; }

// From the API function's name (cudaLaunchKernel, cuGraphLaunch, cuMemcpyHtoDAsync_v2, ...);
// kUnknown only without a name.
inline ApiRole ApiRoleOfName(const char* name) {
  if (!name) return ApiRole::kUnknown;
  if (strstr(name, "GraphLaunch")) return ApiRole::kGraphLaunch;
  if (strstr(name, "Launch")) return ApiRole::kLaunch;
  if (strstr(name, "Memcpy")) return ApiRole::kCopy;
  if (strstr(name, "Memset")) return ApiRole::kSet;
  if (strstr(name, "Synchronize")) return ApiRole::kSync;
  return ApiRole::kAlloc;
}

}  // namespace strata::rt::gpu
