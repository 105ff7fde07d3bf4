// The run calls of the addon: a recorded run's processes (the core's RunFamily, each with its
// totals) and the profile of all of them together (the core's MergeRun), opened as a Profile.
#pragma once

#include <napi.h>

namespace strata::addon {

// runProcesses(path) and openRun(path) on the module's exports; `profile_ctor` makes the JS
// Profile objects (it outlives the module: the addon's instance data).
void ExportRunCalls(Napi::Env env, Napi::Object exports, Napi::FunctionReference* profile_ctor);

}  // namespace strata::addon
