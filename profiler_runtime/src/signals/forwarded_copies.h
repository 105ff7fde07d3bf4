// A signal sent to `strata record`'s process group reaches the target twice: directly, and as
// the copy the CLI forwards (it cannot tell a group kill from a kill of itself alone). Without
// the runtime the program would see it once, so the second of the pair is dropped here.
#pragma once

#include <signal.h>

namespace strata::rt::signals {

// Async-signal-safe. Called first in the runtime's handler of a forwarded signal: true when
// this delivery is the second of a (direct, forwarded) pair from the same sender within a
// short window, and must not reach the program or end the process.
bool IsForwardedDuplicate(int sig, const siginfo_t* info);

}  // namespace strata::rt::signals
