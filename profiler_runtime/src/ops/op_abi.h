/* C ABI between libstrata_runtime.so and framework operator plugins (libstrata_torch.so).
   The runtime loads a plugin when its framework is loaded (ops/torch_loader.cpp), checks the
   framework version the plugin was compiled against (strata_plugin_framework_version) against
   the loaded one, and only then calls strata_plugin_start with this table. The plugin reports
   operator entry/exit through it; the runtime also exports the same functions by name
   (strata_op_*) for other producers. All functions are called from normal code on the thread
   that runs the operator; none of them blocks for long (push may take a short lock the first
   time a name is seen). */
#ifndef STRATA_OPS_OP_ABI_H_
#define STRATA_OPS_OP_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_OPS_ABI_VERSION 3u

enum {
  STRATA_OP_BACKWARD = 1,        /* an autograd node's backward (seq + thread = its forward's) */
  STRATA_OP_ENGINE_WRAPPER = 2,  /* "autograd::engine::evaluate_function: X": the backward op
                                    it wraps hands its forward link to it */
  STRATA_OP_FORWARD_AT_POP = 4,  /* a forward op whose pop says whether it created an autograd
                                    node (pop_forward): its path is stored for a backward only
                                    then, not at every forward op in grad mode */
};

/* A communication call (torch.distributed: a process group's work), as the framework gives it.
   Strings are the framework's, valid during the call; "" when unknown. */
typedef struct StrataCollectiveCall {
  const char* title;       /* the work's title, "<backend>:<collective>" ("gloo:all_reduce") */
  const char* dtype;       /* element type of the input tensors ("Float") */
  const char* group_name;  /* process group name */
  uint64_t elements;       /* input elements, all tensors together */
  uint64_t bytes;          /* input bytes */
  int64_t seq;             /* the framework's sequence number in its group, -1: unknown */
  uint32_t group_size;     /* ranks in the group, 0: unknown */
  uint32_t reserved;
} StrataCollectiveCall;

typedef struct StrataOpsApi {
  uint32_t abi_version; /* STRATA_OPS_ABI_VERSION */
  /* Process-wide id of an operator name (interned; the same name always gets the same id). */
  uint32_t (*intern)(const char* name, size_t len);
  /* Operator entry. sp: an address inside the stack frame that owns the operator's scope (the
     RecordFunction object) or 0; key: matched by pop (the same address is fine); seq: autograd
     sequence number or -1; thread: the forward thread id (backward ops: of their forward op). */
  void (*push)(uint32_t name_id, uint64_t sp, uint64_t key, int64_t seq, uint64_t thread,
               uint32_t flags);
  /* Operator exit: pops the entry pushed with this key (and any left open above it). */
  void (*pop)(uint64_t key);
  /* The same for an entry pushed with STRATA_OP_FORWARD_AT_POP: seq_after is the autograd
     sequence number the thread would give its next node now (a node was created inside the op
     when it is past the op's seq). */
  void (*pop_forward)(uint64_t key, int64_t seq_after);
  /* 1 while this process is being profiled (forked children: 0; push/pop then do nothing). */
  int (*active)(void);
  /* A communication operator entered on this thread (torch: the dispatcher's c10d::allreduce_,
     with the operator already pushed): where the collective was issued. Its work may begin
     later on another thread (torch 1.13's gloo runs it on a worker thread). */
  void (*collective_issue)(const char* op_name);
  /* A collective's work begins (on the issuing thread inside its operator, or on a backend's
     thread); key: matched by collective_end. Returns 0 when the title is not a collective
     (nothing kept). */
  int (*collective_begin)(uint64_t key, const StrataCollectiveCall* call);
  /* Its completion, from any thread. */
  void (*collective_end)(uint64_t key);
} StrataOpsApi;

/* Exported by the runtime. */
uint32_t strata_op_intern(const char* name, size_t len);
void strata_op_push(uint32_t name_id, uint64_t sp, uint64_t key, int64_t seq, uint64_t thread,
                    uint32_t flags);
void strata_op_pop(uint64_t key);
void strata_op_pop_forward(uint64_t key, int64_t seq_after);
int strata_op_active(void);
void strata_op_collective_issue(const char* op_name);
int strata_op_collective_begin(uint64_t key, const StrataCollectiveCall* call);
void strata_op_collective_end(uint64_t key);

/* Exported by a plugin. */
/* The framework version the plugin was compiled against, e.g. "2.11.0". */
const char* strata_plugin_framework_version(void);
/* Registers the plugin's callbacks. Returns 0 on success, else writes why (NUL-terminated). */
int strata_plugin_start(const StrataOpsApi* api, const char* loaded_version, char* why,
                        size_t why_len);
/* Optional: stops (0) or resumes (1) reporting operators, from any thread (sampled tracing's
   windows). */
void strata_plugin_set_enabled(int on);
/* Optional (sampled GPU tracing): starts counting operator calls, each with this probability
   (0: counting). */
int strata_plugin_count_calls(double probability);
/* Optional: the calls counted since then. */
uint64_t strata_plugin_calls_counted(void);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_OPS_OP_ABI_H_ */
