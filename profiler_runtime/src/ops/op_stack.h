// Per-thread operator shadow stack (framework operators such as aten::mm, reported by a plugin
// through ops/op_abi.h) and the forward-path table that links backward operators to the forward
// operator that created their autograd node.
//
// Written only by its own thread (push/pop from normal code); read by the SIGPROF handler on
// the same thread, so publication needs only compiler (signal) fences: an entry is complete
// before `depth` counts it, the adopted prefix before `adopt_at` points at it.
//
// Placement: every entry records `sp`, an address inside the stack frame that owns the
// operator's scope (torch: the RecordFunction guard). Native frames whose SP is above it are the
// operator's callers, frames at or below it run inside it (the stack grows down). See merge.h.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace strata::rt {
struct ThreadSlot;
}

namespace strata::rt::ops {

inline constexpr int kMaxOps = 48;      // nesting depth kept per thread (deeper: counted only)
inline constexpr int kMaxCtx = 200;     // words of an operator context
inline constexpr int kMaxPrefix = 224;  // words of an adopted forward path
inline constexpr int kMaxEntry = 256;   // return addresses of an entry trace

struct OpEntry {
  uint64_t word;   // OpFrameWord(name id)
  uint64_t sp;     // stack address of the operator's scope; 0 = unknown
  uint64_t key;    // matched at pop
  uint32_t flags;  // STRATA_OP_* and kForwardStored
  uint32_t name;   // interned name id (the word's, unpacked)
  int64_t seq;     // autograd sequence number, -1: none (STRATA_OP_FORWARD_AT_POP: stored at pop)
  uint64_t thread; // the forward thread id given with it
};
// OpEntry::flags: a deeper operator with the same sequence number stored its path at its pop
// (it created the node; the enclosing ones only peeked the number).
inline constexpr uint32_t kForwardStored = 1u << 31;

struct OpStack {
  // Read by this thread's SIGPROF handler.
  int depth;      // pushes not yet popped (entries past kMaxOps are counted, not stored)
  int adopt_at;   // entry whose callers are replaced by prefix[] (backward op); -1 = none
  int prefix_n;
  int ctx_n;      // -1 = no context taken for the current outermost operator
  OpEntry e[kMaxOps];
  // Global words, leaf first: the forward operator chain and its context (adopted by a backward
  // operator), or this thread's own context: the merged path rootward of the outermost
  // operator (from the innermost Python frame that called it; native frames when no Python).
  uint64_t prefix[kMaxPrefix];
  uint64_t ctx[kMaxCtx];
  // Owner only. Return addresses (libunwind's fast trace) at the outermost operator's entry,
  // taken, with STRATA_OP_ENTRY_TRACES=1, for operators whose name launched GPU work before
  // (WantEntryTraces): the frames a later trace shares with it from the root are exactly that
  // operator's callers, which locates the operator in a launch path without walking the stack
  // with SPs.
  int entry_n;
  uint64_t entry[kMaxEntry];
  pid_t tid;
  ThreadSlot* slot;
  // Owner only: contexts by call path (op_stack.cpp), mapped on first use and kept with the
  // slot, so a program that starts threads without end maps at most one per slot.
  void* ctx_cache;
};

// Handler-safe: this thread's stack, or nullptr when it never ran an operator.
const OpStack* CurrentStack();

// Normal code, owning thread, the caller holding a PathScope: makes sure s->ctx is taken.
// Returns false when it cannot be (no slot).
bool EnsureContext(OpStack* s);
// The same, for the stack CurrentStack() returned (the GPU launch path holds a const pointer).
bool EnsureContext(const OpStack* s);

// A GPU launch inside `s`'s outermost operator took a full path: from then on outermost
// operators of that name take an entry trace (most operators never launch: views, shape and
// scalar work; tracing each of them cost more than the launches it saved).
void WantEntryTraces(const OpStack* s);
// Entry traces only save time on launches whose path is taken in full: with the launch path
// cache hitting nearly always, tracing every outermost operator costs more than the rare slow
// walk it saves. The cache says which holds (any thread; the last word stands).
void SetEntryTracesWorthwhile(bool worthwhile);

// Normal code: like EnsureContext, but never walks with SPs; false when the thread has no
// Python (the caller then uses the native frames it has).
bool EnsurePythonContext(const OpStack* s);

// Sampled GPU tracing's closed windows: new operators are not pushed (those open still pop).
void SetPaused(bool paused);

// Entry points behind the C ABI.
uint32_t Intern(const char* name, size_t len);
void Push(uint32_t name_id, uint64_t sp, uint64_t key, int64_t seq, uint64_t thread, uint32_t flags);
void Pop(uint64_t key);
// Pop of an entry pushed with STRATA_OP_FORWARD_AT_POP (seq_after: see op_abi.h); -1: unknown.
void PopForward(uint64_t key, int64_t seq_after);
bool Active();

}  // namespace strata::rt::ops
