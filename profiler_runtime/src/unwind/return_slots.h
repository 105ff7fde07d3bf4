// Where a stack walk's return addresses lie, so that a cached call path can be checked against
// the live stack in a few loads instead of another walk (~1 µs for a fast trace, tens of µs for a
// walk with SPs). x86-64 only: a call pushes its return address just below the caller's stack
// pointer, so a caller frame's return address is the word at its SP - 8.
#pragma once

#include <cstdint>

namespace strata::rt::unwind {

// From a walk's caller frames (pcs as FromCurrentContext gives them: return address - 1, and
// each frame's SP), writes n (slot address, return address) pairs to `pairs` and the lowest slot
// address to *low. False when a word is not the return address the walk read there (the frame
// does not follow the convention) or on another architecture: such frames cannot be checked.
bool ReturnSlots(const uint64_t* pcs, const uint64_t* sps, int n, uint64_t* pairs, uint64_t* low);

// Do the return addresses still stand where ReturnSlots found them? The caller makes sure the
// slots lie in live frames of its own stack (above its own frame, on the stack they were read
// from).
bool ReturnSlotsHold(const uint64_t* pairs, int n);

}  // namespace strata::rt::unwind
