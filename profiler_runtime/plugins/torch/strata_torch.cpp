// libstrata_torch.so: PyTorch operators for Strata. Loaded by the runtime when torch is (see
// src/ops/torch_loader.cpp), started only when the torch it was compiled against is the one
// loaded. Registers one RecordFunction global callback pair for the FUNCTION scope (aten
// operators, RECORD_FUNCTION scopes such as "autograd::engine::evaluate_function: X") and the
// BACKWARD_FUNCTION scope (autograd nodes, e.g. AddmmBackward0), and reports entries and exits
// to the runtime's per-thread operator stack (src/ops/op_abi.h):
//   - name: interned once per name (a per-thread cache keyed by the name's content: backward
//     nodes name themselves with a new string at every call);
//   - sp/key: the address of the RecordFunction guard, a local of the frame that owns the
//     operator's scope (the dispatcher's call, the node's operator()); the runtime places the
//     operator frame below the native frames above that address;
//   - seq/thread: RecordFunction::seqNr() with threadId() for forward operators (the autograd
//     sequence number their node will carry; -1 without grad mode), forwardThreadId() for
//     backward nodes. A forward operator's exit gives the thread's next sequence number
//     (pop_forward): past the operator's own, a node was created inside it and the runtime keeps
//     its path for the backward; most forward operators in grad mode create none.
// No inputs, outputs or ids are requested, so torch does no extra work for us.
//
// Collectives: the dispatcher's c10d:: operators (c10d::allreduce_) are where a collective is
// issued (collective_issue, after the push, so the runtime's path has the operator). A second
// callback, for the USER_SCOPE only, with inputs: torch.distributed's process groups open a
// USER_SCOPE RecordFunction per work ("gloo:all_reduce", "nccl:...") with the work's input
// tensors — in the work's constructor inside the c10d:: operator, or (torch 1.13's gloo) when
// a worker thread starts it — and close it when the work completes (an async scope). Its entry
// reports the title, elements, bytes and element type (collective_begin), its exit the
// completion (collective_end). Other USER_SCOPE scopes (record_function) are not
// collectives; the runtime says so from the title and nothing is kept.
//
// Until the program builds its first autograd graph (the runtime's default, STRATA_OPERATORS=auto):
// the operator callbacks are registered switched off, with watches: one for the BACKWARD_FUNCTION
// scope, and the FUNCTION scope at every one of the program's first 4096 operators, then drawn
// one call in 32 (RecordFunction's own sampling: the calls not drawn cost a countdown), that
// looks at an operator's exit whether the thread's autograd sequence number has left 0 — an
// autograd node was built. Any of them switches the operator callbacks on for good. torch
// builds a RecordFunction per scope only where a callback wants that scope, so inference and
// decoding (no_grad, or no tensor needing a gradient) pay a countdown per operator (after the
// first 4096); the core names their operators from the dispatcher's frames instead. Training
// gets recorded operators (and backward -> forward links) from its first node on. A collective
// ends the wait too (a distributed program's later collectives are then issued inside recorded
// c10d:: operators).
//
// Sampled GPU tracing (windows): a third callback, registered on the runtime's request and never
// switched off, counts FUNCTION-scope operator calls with a small sampling probability, in and
// out of the windows alike. The runtime reads the count at each window's edges: calls counted in
// windows over all calls is the share of the program's work that was traced, which is less than
// the windows' share of time where tracing slows the program.
#include <ATen/SequenceNumber.h>
#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>
#include <c10/core/ScalarType.h>
#include <c10/core/GradMode.h>
#include <torch/version.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>

#include "ops/op_abi.h"

// The version the runtime compares with the loaded torch; tests override it to check refusal.
#ifndef STRATA_TORCH_BUILT_VERSION
#define STRATA_TORCH_BUILT_VERSION TORCH_VERSION
#endif

namespace {

StrataOpsApi g_api;
at::CallbackHandle g_handle = 0;
at::CallbackHandle g_count_handle = 0;
std::atomic<uint64_t> g_counted{0};

// The operator callbacks run while the windows want them (always, without sampled tracing) and
// the program has built its first autograd graph (always, unless started waiting for it).
std::mutex g_switch_mu;
bool g_window_on = true;
bool g_graph_seen = true;
at::CallbackHandle g_watch_handle = 0;        // BACKWARD_FUNCTION scope
at::CallbackHandle g_graph_watch_handle = 0;  // FUNCTION scope, sampled
at::CallbackHandle g_first_calls_handle = 0;  // FUNCTION scope, every call of the first ones
std::atomic<uint32_t> g_first_calls_left{0};
std::atomic<int> g_waiting{0};  // 1 while the callbacks wait for the first autograd graph

void EndWait();

void ApplySwitch() {  // under g_switch_mu
  if (!g_handle) return;
  if (g_window_on && g_graph_seen) at::reenableCallback(g_handle);
  else at::disableCallback(g_handle);
}
constexpr char kEngine[] = "autograd::engine::evaluate_function: ";

struct NameEntry {
  uint64_t hash;
  uint32_t id;
  uint32_t flags;
  uint32_t len;
  bool comm;  // a c10d:: operator: where a collective is issued
  char copy[96];
};
thread_local NameEntry t_names[256];

constexpr char kComm[] = "c10d::";

// Keyed by content, not by pointer: a backward node's name is a new string at every call, and
// a miss interns under the runtime's lock (a std::string, a hash map) at every backward call.
// The key reads three 8-byte words of the name (its start, middle and end: names share prefixes
// such as "aten::" and "autograd::engine::evaluate_function: ") and its length, not every byte:
// an entry is checked against the whole name anyway.
uint64_t NameKey(const char* name, size_t len) {
  uint64_t a = 0, b = 0, c = 0;
  if (len >= 8) {
    memcpy(&a, name, 8);
    memcpy(&b, name + len / 2 - 4, 8);
    memcpy(&c, name + len - 8, 8);
  } else {
    memcpy(&a, name, len);
  }
  uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (c * 0x165667B19E3779F9ull) ^ len;
  return h ^ (h >> 29);
}

uint32_t NameId(const char* name, uint32_t* flags, bool* comm) {
  const size_t len = strlen(name);
  const uint64_t h = NameKey(name, len);
  NameEntry& e = t_names[(h ^ (h >> 32)) & 255];
  if (e.hash == h && e.len == len && memcmp(e.copy, name, len) == 0) {
    *flags = e.flags;
    *comm = e.comm;
    return e.id;
  }
  *comm = strncmp(name, kComm, sizeof(kComm) - 1) == 0;
  uint32_t id = g_api.intern(name, len);
  uint32_t f = strncmp(name, kEngine, sizeof(kEngine) - 1) == 0 ? uint32_t(STRATA_OP_ENGINE_WRAPPER) : 0u;
  if (len < sizeof(e.copy)) {
    e.hash = h;
    e.len = uint32_t(len);
    e.id = id;
    e.flags = f;
    e.comm = *comm;
    memcpy(e.copy, name, len);
  }
  *flags = f;
  return id;
}

std::unique_ptr<at::ObserverContext> OnEnter(const at::RecordFunction& fn) {
  if (fn.isAsync()) return nullptr;  // may end on another thread: not a stack scope
  const char* name = fn.name();
  if (!name) return nullptr;
  uint32_t flags = 0;
  bool comm = false;
  uint32_t id = NameId(name, &flags, &comm);
  bool backward = fn.scope() == at::RecordScope::BACKWARD_FUNCTION;
  if (backward) flags |= STRATA_OP_BACKWARD;
  uint64_t key = reinterpret_cast<uintptr_t>(&fn);
  uint64_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  // The guard lives in its owner's frame, above ours; a heap-allocated one (not a stack scope)
  // falls back to this callback's frame, which still lies below the operator's callers.
  uint64_t sp = key > here && key - here < (1u << 20) ? key : here;
  // A forward operator without grad mode creates no autograd node: no backward will look for
  // its path, so it is not stored (inference and decoding loops skip that work).
  int64_t seq = backward || c10::GradMode::is_enabled() ? fn.seqNr() : -1;
  if (!backward && seq >= 0) flags |= STRATA_OP_FORWARD_AT_POP;
  g_api.push(id, sp, key, seq, backward ? fn.forwardThreadId() : fn.threadId(), flags);
  if (comm && g_api.collective_issue) g_api.collective_issue(name);
  return nullptr;
}

void OnExit(const at::RecordFunction& fn, at::ObserverContext*) {
  if (fn.isAsync()) return;
  const uint64_t key = reinterpret_cast<uintptr_t>(&fn);
  if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION || fn.seqNr() < 0) g_api.pop(key);
  else g_api.pop_forward(key, int64_t(at::sequence_number::peek()));
}

at::CallbackHandle g_comm_handle = 0;

struct CommContext : at::ObserverContext {
  bool open = false;
};

std::unique_ptr<at::ObserverContext> OnCommEnter(const at::RecordFunction& fn) {
  if (!g_api.collective_begin) return nullptr;
  const char* title = fn.name();
  if (!title || !strchr(title, ':')) return nullptr;  // works are "<backend>:<collective>"
  // A distributed program: its next collectives are issued inside recorded c10d:: operators.
  EndWait();
  StrataCollectiveCall call{};
  call.title = title;
  call.seq = -1;
  c10::ScalarType dtype = c10::ScalarType::Undefined;
  for (const c10::IValue& v : fn.inputs()) {
    if (!v.isTensor()) continue;
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) continue;
    call.elements += uint64_t(t.numel());
    call.bytes += uint64_t(t.numel()) * uint64_t(t.element_size());
    if (dtype == c10::ScalarType::Undefined) dtype = t.scalar_type();
  }
  call.dtype = dtype == c10::ScalarType::Undefined ? "" : c10::toString(dtype);
  call.group_name = "";
  if (!g_api.collective_begin(reinterpret_cast<uintptr_t>(&fn), &call)) return nullptr;
  auto ctx = std::make_unique<CommContext>();
  ctx->open = true;
  return ctx;
}

void OnCommExit(const at::RecordFunction& fn, at::ObserverContext* ctx) {
  if (ctx && static_cast<CommContext*>(ctx)->open) g_api.collective_end(reinterpret_cast<uintptr_t>(&fn));
}

// The wait is over: the operator callbacks go on (from the next operator; the scope that ended
// the wait and the operators before it stay unrecorded) and the watch goes off. RecordFunction
// copied its callbacks when the current scope began, so changing them here is safe.
void EndWait() {
  if (!g_waiting.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(g_switch_mu);
  if (g_graph_seen) return;
  g_graph_seen = true;
  ApplySwitch();
  if (g_watch_handle) at::disableCallback(g_watch_handle);
  if (g_graph_watch_handle) at::disableCallback(g_graph_watch_handle);
  if (g_first_calls_handle) at::disableCallback(g_first_calls_handle);
  g_waiting.store(0, std::memory_order_release);
}

// The first autograd node.
std::unique_ptr<at::ObserverContext> OnFirstBackward(const at::RecordFunction&) {
  EndWait();
  return nullptr;
}

std::unique_ptr<at::ObserverContext> OnGraphWatchEnter(const at::RecordFunction&) { return nullptr; }

// The thread's autograd sequence number moves only when a node is built: past 0 at a watched
// operator's exit, this operator or any one before it on this thread built one. (Asking the
// drawn operator itself to have built it missed a small model's whole first step.)
void OnGraphWatchExit(const at::RecordFunction&, at::ObserverContext*) {
  if (at::sequence_number::peek() > 0) EndWait();
}

// The program's first operators are all watched, not one in 32: the first forward then switches
// the callbacks on at its first node, where a draw may land after a small model's whole forward
// (GCN training on the H200: the first step unlinked, 90% of the backward's kernels on their
// forward lines in 10 steps). Past them the sampled watch goes on alone: a no_grad program pays
// a RecordFunction at each of them once (a few ms).
constexpr uint32_t kFirstCallsWatched = 4096;

void OnFirstCallsExit(const at::RecordFunction& fn, at::ObserverContext* ctx) {
  OnGraphWatchExit(fn, ctx);
  if (g_first_calls_left.fetch_sub(1, std::memory_order_relaxed) == 1) {
    std::lock_guard<std::mutex> lock(g_switch_mu);
    if (g_first_calls_handle) at::disableCallback(g_first_calls_handle);
  }
}

std::unique_ptr<at::ObserverContext> OnCount(const at::RecordFunction&) {
  g_counted.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) const char* strata_plugin_framework_version(void) {
  return STRATA_TORCH_BUILT_VERSION;
}

__attribute__((visibility("default"))) int strata_plugin_start(const StrataOpsApi* api, const char* loaded_version,
                                                               char* why, size_t why_len) {
  if (!api || api->abi_version != STRATA_OPS_ABI_VERSION) {
    snprintf(why, why_len, "runtime operator ABI %u, plugin %u", api ? api->abi_version : 0u,
             STRATA_OPS_ABI_VERSION);
    return 1;
  }
  if (g_handle) return 0;
  g_api = *api;
  try {
    at::RecordFunctionCallback cb(&OnEnter, &OnExit);
    cb.needsInputs(false).needsOutputs(false).needsIds(false).scopes(
        {at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION});
    g_handle = at::addGlobalCallback(cb);
    at::RecordFunctionCallback comm(&OnCommEnter, &OnCommExit);
    comm.needsInputs(true).needsOutputs(false).needsIds(false).scopes({at::RecordScope::USER_SCOPE});
    g_comm_handle = at::addGlobalCallback(comm);
    // RecordFunction is on by default (a thread-local switch); make sure it is here.
    if (!at::isRecordFunctionEnabled()) at::enableRecordFunction(true);
  } catch (const std::exception& e) {
    snprintf(why, why_len, "addGlobalCallback: %s", e.what());
    return 1;
  }
  (void)loaded_version;
  return 0;
}

// Sampled GPU tracing switches operator recording off between its windows: a disabled global
// callback costs RecordFunction nothing. Scopes already entered keep their exit callback.
__attribute__((visibility("default"))) void strata_plugin_set_enabled(int on) {
  if (!g_handle) return;
  std::lock_guard<std::mutex> lock(g_switch_mu);
  g_window_on = on != 0;
  ApplySwitch();
  if (g_comm_handle) {
    if (on) at::reenableCallback(g_comm_handle);
    else at::disableCallback(g_comm_handle);
  }
}

// Switches the operator callbacks off until the program builds its first autograd graph (called
// right after start). Collectives' USER_SCOPE callback stays on. Returns 0 when waiting.
__attribute__((visibility("default"))) int strata_plugin_wait_for_autograd(void) {
  if (!g_handle) return 1;
  std::lock_guard<std::mutex> lock(g_switch_mu);
  if (g_watch_handle) return 0;
  try {
    at::RecordFunctionCallback watch(&OnFirstBackward);
    watch.needsInputs(false).needsOutputs(false).needsIds(false).scopes({at::RecordScope::BACKWARD_FUNCTION});
    g_watch_handle = at::addGlobalCallback(watch);
    at::RecordFunctionCallback graph(&OnGraphWatchEnter, &OnGraphWatchExit);
    graph.needsInputs(false).needsOutputs(false).needsIds(false).samplingProb(1.0 / 32).scopes(
        {at::RecordScope::FUNCTION});
    g_graph_watch_handle = at::addGlobalCallback(graph);
    g_first_calls_left.store(kFirstCallsWatched, std::memory_order_relaxed);
    at::RecordFunctionCallback first(&OnGraphWatchEnter, &OnFirstCallsExit);
    first.needsInputs(false).needsOutputs(false).needsIds(false).scopes({at::RecordScope::FUNCTION});
    g_first_calls_handle = at::addGlobalCallback(first);
  } catch (const std::exception&) {
    for (at::CallbackHandle* h : {&g_watch_handle, &g_graph_watch_handle, &g_first_calls_handle}) {
      if (*h) at::removeCallback(*h);
      *h = 0;
    }
    return 1;
  }
  g_graph_seen = false;
  g_waiting.store(1, std::memory_order_release);
  ApplySwitch();
  return 0;
}

// 1 while the operator callbacks still wait for the first autograd graph.
__attribute__((visibility("default"))) int strata_plugin_waiting_for_autograd(void) {
  return g_waiting.load(std::memory_order_acquire);
}

// Starts counting operator calls, each counted with this probability (RecordFunction's own
// sampling: the calls not drawn cost a countdown). Returns 0 when counting.
__attribute__((visibility("default"))) int strata_plugin_count_calls(double probability) {
  if (g_count_handle) return 0;
  try {
    at::RecordFunctionCallback cb(&OnCount);
    cb.needsInputs(false).needsOutputs(false).needsIds(false).samplingProb(probability).scopes(
        {at::RecordScope::FUNCTION});
    g_count_handle = at::addGlobalCallback(cb);
  } catch (const std::exception&) {
    return 1;
  }
  return 0;
}

// The calls counted so far (each stands for 1/probability calls).
__attribute__((visibility("default"))) uint64_t strata_plugin_calls_counted(void) {
  return g_counted.load(std::memory_order_relaxed);
}

}  // extern "C"
