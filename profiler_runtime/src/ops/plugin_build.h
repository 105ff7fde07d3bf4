// The operator plugin for the loaded torch, built on first use: compiled from the plugin's
// source (embedded in the runtime) against that torch's own headers and libraries with the C++
// compiler on PATH, once per torch version and C++ ABI, and kept in a cache directory
// ($STRATA_CACHE_DIR, else $XDG_CACHE_HOME/strata, else ~/.cache/strata) that later runs and
// concurrent processes (one builds, the others wait on a lock) reuse.
#pragma once

#include <string>

#include "ops/torch_install.h"

namespace strata::rt::ops {

struct PluginBuild {
  bool ok = false;
  std::string path;        // the plugin (ok)
  std::string why;         // why there is none (!ok), one line
  bool built_now = false;  // compiled by this process
  double seconds = 0;      // compile time when built_now
};

// Normal code, outside the loader lock. May take tens of seconds the first time (progress on
// stderr); afterwards a stat.
PluginBuild CachedOrBuiltPlugin(const TorchInstall& torch);

}  // namespace strata::rt::ops
