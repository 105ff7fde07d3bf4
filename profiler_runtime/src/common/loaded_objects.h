// Walks over the loaded objects (dl_iterate_phdr), and fork(). dl_iterate_phdr holds the
// loader's write lock, which glibc does not reset in a forked child: a fork() while any thread
// walked (our aggregator looking up a module, libunwind in a sample handler, a C++ exception)
// left the child blocked forever on its first walk — the forked child's runtime starts with one,
// and a shell's command substitution then waited on it. Every walk in the process goes through
// the interposed dl_iterate_phdr and is counted here; fork's prepare handler waits until none is
// in flight and holds new ones back until the fork is done.
#pragma once

#include <link.h>

namespace strata::rt {

using DlIterateFn = int (*)(int (*)(dl_phdr_info*, size_t, void*), void*);

// A walk with `real` (the loader's dl_iterate_phdr), counted. In a signal handler it never
// waits: while a fork is starting it reports no objects (the handler's unwind fails for that
// sample) rather than spin on a thread it may have interrupted.
int CountedWalk(DlIterateFn real, int (*callback)(dl_phdr_info*, size_t, void*), void* data, bool in_signal_handler);

// The runtime's own walks: through the interposer, counted like everyone's.
int IterateLoadedObjects(int (*callback)(dl_phdr_info*, size_t, void*), void* data);

// pthread_atfork: the prepare handler waits (bounded) for walks in flight to end and holds back
// new ones; both sides release them after the fork.
void HoldWalksForFork();
void ReleaseWalksAfterFork(bool in_child);

}  // namespace strata::rt
