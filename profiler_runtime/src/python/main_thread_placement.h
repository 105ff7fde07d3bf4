// Work a thread without Python does for the main thread's Python line (XLA's compile and
// executor threads launching kernels, DDP's reducer issuing gradient all-reduces from the
// autograd engine's device thread) goes under the main thread's latest Python stack, below a
// frame naming the thread that did it (python/main_stack.h says when that stack is right).
#pragma once

#include <cstdint>

namespace strata::rt::python {

// `out` holds a collected path of the calling thread (leaf first, n words, room for max).
// On the main thread: publishes its Python frames and returns n. On another thread whose path
// has no Python frame: appends a thread frame and the main thread's latest stack at the root end
// and returns the new length. Otherwise returns n unchanged. Normal code only.
int PlaceUnderMainThread(uint64_t* out, int n, int max);

}  // namespace strata::rt::python
