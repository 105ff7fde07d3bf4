// Loads the PyTorch operator plugin (libstrata_torch.so) when torch is loaded into the profiled
// process. Called by the dlopen interposer after each successful dlopen, in normal context,
// outside the loader lock. The plugin is compiled against one torch version's headers, so it is
// only started when that version equals the loaded torch and loading it did not pull in a second
// libtorch. Where it comes from, in order: $STRATA_TORCH_PLUGIN (that file and no other); the
// one built with the runtime, when it links the loaded torch's sonames and its version matches;
// else the one built for this torch on first use (ops/plugin_build.cpp). When none can be had,
// meta "operators" says why and the program runs on unprofiled at the operator level.
// STRATA_OPERATORS (see OperatorsMode): auto, the default, starts the plugin with its operator
// callbacks waiting for the program's first autograd graph; callbacks records from the start; frames
// starts no plugin.
#include "ops/torch_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpu/trace_window_config.h"
#include "common/log.h"
#include "ops/elf_needed.h"
#include "ops/op_abi.h"
#include "ops/op_registry.h"
#include "ops/op_stack.h"
#include "ops/plugin_build.h"
#include "ops/torch_install.h"
#include "runtime_state.h"

namespace strata::rt::ops {
namespace {

std::atomic<void (*)(int)> g_set_enabled{nullptr};  // the started plugin's switch, if it has one
std::atomic<uint64_t (*)(void)> g_calls_counted{nullptr};  // set once the plugin counts calls
// One call in this many is counted: the calls not drawn cost RecordFunction only its countdown.
// At 1/128 a short ResNet-50 training run on the H200 had 83 counted calls in its windows, under
// the 100 the scale by operator calls needs (trace_windows.h), and fell back to the time share.
constexpr double kCountProbability = 1.0 / 32;

std::atomic<int> g_tried{0};

// STRATA_OPS_WORK=none (diagnostic, for the launch-cost breakdown): the plugin's callbacks stay
// registered, so torch pays RecordFunction at every operator, but entries and exits do nothing
// here: what torch's own operator callbacks cost beside what the runtime does with them.
void IdlePush(uint32_t, uint64_t, uint64_t, int64_t, uint64_t, uint32_t) {}
void IdlePop(uint64_t) {}
void IdlePopForward(uint64_t, int64_t) {}

const StrataOpsApi kIdleApi = {
    STRATA_OPS_ABI_VERSION,
    &strata_op_intern,
    &IdlePush,
    &IdlePop,
    &IdlePopForward,
    &strata_op_active,
    &strata_op_collective_issue,
    &strata_op_collective_begin,
    &strata_op_collective_end,
};

const StrataOpsApi kApi = {
    STRATA_OPS_ABI_VERSION,
    &strata_op_intern,
    &strata_op_push,
    &strata_op_pop,
    &strata_op_pop_forward,
    &strata_op_active,
    &strata_op_collective_issue,
    &strata_op_collective_begin,
    &strata_op_collective_end,
};

std::string Base(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

std::string BesideRuntime() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&BesideRuntime), &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    size_t s = self.rfind('/');
    return (s == std::string::npos ? std::string(".") : self.substr(0, s)) + "/libstrata_torch.so";
  }
  return "";
}

// The plugin needs the very libtorch_cpu that is loaded (same soname), so dlopen cannot bring a
// second torch in (Debian's libtorch_cpu.so.1.13 next to pip's libtorch_cpu.so).
bool LinksLoadedTorch(const std::string& plugin, const TorchInstall& t) {
  std::string loaded = Base(t.torch_cpu);
  for (const std::string& needed : NeededLibraries(plugin))
    if (needed == loaded) return true;
  return false;
}

// Where operators come from. kAuto: no RecordFunction at torch's operators until the program
// builds its first autograd graph (a forward operator that makes an autograd node, seen one call
// in 32, or the first backward node; inference and decoding never pay for them, the core names
// their operators from the dispatcher's frames), callbacks from then on (training's backward
// operators linked to their forward lines from within its first forward); a rank of a distributed
// job, or a program's first collective, switches them on too. kFrames: never callbacks (no plugin).
enum class OperatorsMode { kAuto, kCallbacks, kFrames };

OperatorsMode Mode() {
  const char* v = getenv("STRATA_OPERATORS");
  if (!v || !*v || strcmp(v, "auto") == 0) return OperatorsMode::kAuto;
  if (strcmp(v, "callbacks") == 0) return OperatorsMode::kCallbacks;
  if (strcmp(v, "frames") == 0) return OperatorsMode::kFrames;
  Log("bad STRATA_OPERATORS=%s (auto, callbacks or frames): recording operators from the first autograd graph", v);
  return OperatorsMode::kAuto;
}

// The launcher's world size as the runtime read it at its start (not read again here: that read
// may set STRATA_RUN_ID, and setenv is no call for a program's threads to race with).
bool InDistributedJob() {
  const std::string& size = state::GetConfig().identity.world_size;
  return !size.empty() && size != "1" && size != "0";
}

struct Started {
  bool ok = false;
  bool waiting = false;  // the callbacks wait for the first autograd graph
  std::string why;
  std::string built;  // the torch version the plugin was compiled against
};

Started Start(const std::string& path, const TorchInstall& t) {
  Started s;
  std::string torch = TorchLabel(t);
  if (access(path.c_str(), R_OK) != 0) {
    s.why = torch + " loaded, no plugin at " + path;
    return s;
  }
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    s.why = torch + " loaded, cannot load " + path + ": " + (e ? e : "?");
    return s;
  }
  auto version = reinterpret_cast<const char* (*)()>(dlsym(h, "strata_plugin_framework_version"));
  auto start = reinterpret_cast<int (*)(const StrataOpsApi*, const char*, char*, size_t)>(
      dlsym(h, "strata_plugin_start"));
  if (!version || !start) {
    s.why = path + " is not a Strata operator plugin";
    return s;
  }
  s.built = version();
  if (LoadedTorchLibraries().count > t.count) {
    // Its DT_NEEDED named another torch's libraries: never start it against two torches.
    s.why = path + " is built for torch " + s.built + " and loaded a second libtorch next to " + torch;
    return s;
  }
  if (!SameVersion(s.built, t.version)) {
    s.why = path + " is built for torch " + s.built + ", the program loaded " + torch;
    return s;
  }
  char why[256] = {0};
  const char* work = getenv("STRATA_OPS_WORK");
  const StrataOpsApi* api = work && strcmp(work, "none") == 0 ? &kIdleApi : &kApi;
  if (work && *work && api == &kApi) Log("bad STRATA_OPS_WORK=%s (none: operators not recorded): recording them", work);
  if (start(api, t.version.c_str(), why, sizeof(why)) != 0) {
    s.why = torch + ": plugin refused: " + why;
    return s;
  }
  s.ok = true;
  g_set_enabled.store(reinterpret_cast<void (*)(int)>(dlsym(h, "strata_plugin_set_enabled")));
  // A rank of a distributed job records from the start: its collectives are issued inside c10d::
  // operators from the first one on.
  if (Mode() == OperatorsMode::kAuto && !InDistributedJob()) {
    // A plugin without the switch (built by an older runtime) records from the start.
    auto wait = reinterpret_cast<int (*)(void)>(dlsym(h, "strata_plugin_wait_for_autograd"));
    auto waiting = reinterpret_cast<int (*)(void)>(dlsym(h, "strata_plugin_waiting_for_autograd"));
    if (wait && waiting && wait() == 0) {
      s.waiting = true;
      SetPluginWaiting("from frames: " + torch +
                           " loaded, no autograd graph was built: the RecordFunction callbacks waited for one "
                           "(STRATA_OPERATORS=auto), operators named from the dispatcher's native frames",
                       waiting);
    }
  }
  gpu::TraceWindowConfig windows;
  std::string ignored;
  if (gpu::ParseTraceWindows(getenv("STRATA_GPU_SAMPLING"), &windows, &ignored) && windows.Enabled()) {
    auto count = reinterpret_cast<int (*)(double)>(dlsym(h, "strata_plugin_count_calls"));
    auto counted = reinterpret_cast<uint64_t (*)(void)>(dlsym(h, "strata_plugin_calls_counted"));
    if (count && counted && count(kCountProbability) == 0) g_calls_counted.store(counted);
  }
  return s;
}

void Recorded(const TorchInstall& t, const Started& s, const std::string& origin) {
  const std::string how = s.waiting ? "RecordFunction callbacks from the first autograd graph on, operators before it named "
                                      "from the dispatcher's native frames"
                                    : "RecordFunction callbacks";
  SetPluginStatus("recorded: " + TorchLabel(t) + " (" + how + ", plugin built for " + s.built + ", " + origin + ")",
                  true);
}

// STRATA_OPERATORS=frames: no RecordFunction callbacks (torch then builds no RecordFunction at
// its operators: on launch-bound programs most of what operator recording costs is torch's own);
// the core names operators from the dispatcher's native frames instead. Backward operators are
// then not linked to their forward line.
void LoadPlugin(const char* opened) {
  TorchInstall t = DescribeLoadedTorch(opened);
  if (Mode() == OperatorsMode::kFrames) {
    SetPluginStatus("from frames: " + TorchLabel(t) +
                        " loaded, no RecordFunction callbacks (STRATA_OPERATORS=frames): operators named from the "
                        "dispatcher's native frames, backward operators not linked to their forward line",
                    false);
    return;
  }
  if (const char* p = getenv("STRATA_TORCH_PLUGIN"); p && *p) {
    Started s = Start(p, t);
    if (s.ok) Recorded(t, s, std::string("$STRATA_TORCH_PLUGIN ") + p);
    else SetPluginStatus("not recorded: " + s.why, false);
    return;
  }
  std::string beside = BesideRuntime();
  std::string beside_why;
  if (!beside.empty() && access(beside.c_str(), R_OK) == 0 && LinksLoadedTorch(beside, t)) {
    Started s = Start(beside, t);
    if (s.ok) return Recorded(t, s, beside);
    beside_why = s.why + "; ";
  }
  PluginBuild b = CachedOrBuiltPlugin(t);
  if (!b.ok) {
    SetPluginStatus("not recorded: " + TorchLabel(t) + " loaded: " + beside_why + b.why, false);
    return;
  }
  Started s = Start(b.path, t);
  if (!s.ok) {
    SetPluginStatus("not recorded: " + beside_why + s.why, false);
    return;
  }
  char secs[32];
  snprintf(secs, sizeof(secs), "%.1f", b.seconds);
  Recorded(t, s, b.built_now ? "built on first use in " + std::string(secs) + " s into " + b.path : "cached " + b.path);
}

}  // namespace

void AfterDlopen(const char* file) {
  if (g_tried.load(std::memory_order_relaxed)) return;
  if (!file || !strstr(file, "torch")) return;  // cheap filter: torch/_C..., libtorch*
  if (!state::Active() || getpid() != state::ProfiledPid()) return;
  if (LoadedTorchLibraries().torch_cpu.empty()) return;  // not yet: libtorch_global_deps come first
  int expected = 0;
  if (!g_tried.compare_exchange_strong(expected, 1)) return;
  LoadPlugin(file);
}

void AtRuntimeStart() {
  if (LoadedTorchLibraries().torch_cpu.empty()) return;  // the usual case: torch comes by dlopen, if at all
  int expected = 0;
  if (!g_tried.compare_exchange_strong(expected, 1)) return;
  // Linked into the program (a C++ program on libtorch): no dlopen ever announces it, and starting
  // a plugin (or building one) before main() is not worth the risk; the core names the operators
  // from the dispatcher's frames.
  TorchInstall t = DescribeLoadedTorch(nullptr);
  SetPluginStatus("from frames: " + TorchLabel(t) +
                      " linked into the program (no plugin is started where torch is not loaded by dlopen): "
                      "operators named from the dispatcher's native frames, backward operators not linked to "
                      "their forward line",
                  false);
}

bool OperatorCallsCounted(uint64_t* counted, double* probability) {
  auto f = g_calls_counted.load();
  if (!f) return false;
  *counted = f();
  *probability = kCountProbability;
  return true;
}

void SetOperatorsEnabled(bool on) {
  SetPaused(!on);  // whether or not the plugin's own switch works, nothing is pushed
  if (auto f = g_set_enabled.load()) f(on ? 1 : 0);
}

}  // namespace strata::rt::ops
