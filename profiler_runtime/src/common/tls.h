// Per-thread flags shared by the signal handler and the interposers. Plain __thread PODs with
// the initial-exec model: the runtime is preloaded (static TLS), so reading them in a signal
// handler never calls __tls_get_addr (which may allocate).
#pragma once

#include <csetjmp>

#define STRATA_TLS __thread __attribute__((tls_model("initial-exec")))

namespace strata::rt {

struct ThreadSlot;

extern STRATA_TLS int t_loader_busy;     // >0 while this thread is inside dlopen/dlclose/...
extern STRATA_TLS int t_in_handler;      // 1 while the SIGPROF handler runs on this thread
extern STRATA_TLS int t_internal;        // 1 on the runtime's own threads (never sampled)
extern STRATA_TLS int t_fault_guard;     // 1 while the handler reads memory it cannot vouch for
extern STRATA_TLS sigjmp_buf* t_fault_jmp;  // where the fatal-signal handler jumps back to

}  // namespace strata::rt
