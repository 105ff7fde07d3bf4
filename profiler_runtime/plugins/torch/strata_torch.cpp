// libstrata_torch.so: PyTorch operators for Strata. Loaded by the runtime when torch is (see
// src/ops/torch_loader.cpp), started only when the torch it was compiled against is the one
// loaded. Registers one RecordFunction global callback pair for the FUNCTION scope (aten
// operators, RECORD_FUNCTION scopes such as "autograd::engine::evaluate_function: X") and the
// BACKWARD_FUNCTION scope (autograd nodes, e.g. AddmmBackward0), and reports entries and exits
// to the runtime's per-thread operator stack (src/ops/op_abi.h):
//   - name: interned once per name (a per-thread cache keyed by the name pointer, checked by
//     content, so the per-call strings of backward nodes are safe);
//   - sp/key: the address of the RecordFunction guard, a local of the frame that owns the
//     operator's scope (the dispatcher's call, the node's operator()); the runtime places the
//     operator frame below the native frames above that address;
//   - seq/thread: RecordFunction::seqNr() with threadId() for forward operators (the autograd
//     sequence number their node will carry; -1 without grad mode), forwardThreadId() for
//     backward nodes.
// No inputs, outputs or ids are requested, so torch does no extra work for us.
#include <ATen/record_function.h>
#include <c10/core/GradMode.h>
#include <torch/version.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "ops/op_abi.h"

// The version the runtime compares with the loaded torch; tests override it to check refusal.
#ifndef STRATA_TORCH_BUILT_VERSION
#define STRATA_TORCH_BUILT_VERSION TORCH_VERSION
#endif

namespace {

StrataOpsApi g_api;
at::CallbackHandle g_handle = 0;
constexpr char kEngine[] = "autograd::engine::evaluate_function: ";

struct NameEntry {
  const char* ptr;
  uint32_t id;
  uint32_t flags;
  char copy[64];
};
thread_local NameEntry t_names[256];

uint32_t NameId(const char* name, uint32_t* flags) {
  NameEntry& e = t_names[(reinterpret_cast<uintptr_t>(name) >> 3) & 255];
  if (e.ptr == name && strncmp(e.copy, name, sizeof(e.copy)) == 0) {
    *flags = e.flags;
    return e.id;
  }
  size_t len = strlen(name);
  uint32_t id = g_api.intern(name, len);
  uint32_t f = strncmp(name, kEngine, sizeof(kEngine) - 1) == 0 ? uint32_t(STRATA_OP_ENGINE_WRAPPER) : 0u;
  if (len < sizeof(e.copy)) {
    e.ptr = name;
    e.id = id;
    e.flags = f;
    memcpy(e.copy, name, len + 1);
  }
  *flags = f;
  return id;
}

std::unique_ptr<at::ObserverContext> OnEnter(const at::RecordFunction& fn) {
  if (fn.isAsync()) return nullptr;  // may end on another thread: not a stack scope
  const char* name = fn.name();
  if (!name) return nullptr;
  uint32_t flags = 0;
  uint32_t id = NameId(name, &flags);
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
  g_api.push(id, sp, key, seq, backward ? fn.forwardThreadId() : fn.threadId(), flags);
  return nullptr;
}

void OnExit(const at::RecordFunction& fn, at::ObserverContext*) {
  if (fn.isAsync()) return;
  g_api.pop(reinterpret_cast<uintptr_t>(&fn));
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
  if (on) at::reenableCallback(g_handle);
  else at::disableCallback(g_handle);
}

}  // extern "C"
