// The main thread's latest Python stack, for GPU work that other threads do on its behalf.
//
// XLA's threads (compile-time autotuning, host transfers, executables run by its executor) and
// other framework threads launch kernels with no Python stack of their own, while the program's
// Python line waits for them on the main thread. The main thread publishes its Python frames
// (process-wide words only) each time its stack is taken - every sample while it runs, every
// GPU launch it makes - and a launch from a thread without Python is placed under the latest
// published stack, below a thread frame that names the launching thread. A blocked main thread
// is not sampled, but its stack does not change while it waits, so the latest one is the one
// it waits in; what it cannot tell is work a thread does while the main thread has already
// moved on (asynchronous dispatch), which then lands under the main thread's current line.
//
// One writer (the main thread, in its SIGPROF handler or in normal code) and many readers
// (launching threads), through a sequence lock; handler-safe on the writer side.
#pragma once

#include <cstdint>

namespace strata::rt::python {

inline constexpr int kMainStackMax = 512;  // as deep as a Python walk (PyStack::kMaxFrames)

// Called with a thread's Python words (leaf first). Publishes them when the calling thread is
// the process's main thread and every word is process-wide (GlobalPyWord); otherwise nothing.
void PublishIfMain(const uint64_t* words, int n);

// True on the process's main thread (cached per thread; handler-safe).
bool OnMainThread();

// Normal code: the latest published stack (leaf first) into out; 0 when none.
int ReadMainStack(uint64_t* out, int max);

}  // namespace strata::rt::python
