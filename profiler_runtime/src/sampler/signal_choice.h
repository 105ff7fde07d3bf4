// Which signal carries samples: a real-time signal the program does not use, so its own
// SIGPROF/SIGALRM handlers and timers keep working. Chosen from the top of the real-time range
// (glibc and most libraries take theirs from the bottom), skipping signals that are ignored,
// handled or blocked at that point and those the program took from us before.
#pragma once

namespace strata::rt::signal_choice {

// A free real-time signal, or 0 when none is left. Normal context.
int Pick();
// The program set a disposition for `sig`: never pick it again.
void MarkTaken(int sig);
// "SIGRTMAX", "SIGRTMAX-3", "SIGPROF", ... into `out`.
void Name(int sig, char* out, unsigned size);

}  // namespace strata::rt::signal_choice
