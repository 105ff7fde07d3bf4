// Processes the target leaves running when it exits (multiprocessing's resource tracker and
// forkserver, a pool's workers, a daemon): each writes its own profile when it ends, often a
// moment after the target. `strata record` adopts them (a child subreaper) and waits a little
// for them, so that the run it reports, and the processes view that opens next, are whole.
#pragma once

#include <utility>
#include <vector>

namespace strata::cli {

// Makes this process the reaper of its orphaned descendants. Before the target is started.
void AdoptLeftProcesses();

// After the target was reaped: reaps adopted descendants until none is left, `max_seconds`
// pass, or StopWaitingForLeftProcesses() is called (a signal handler may). Says on stderr when
// the wait is noticeable and when some are still running at the end. Returns (pid, wait status)
// of each one reaped.
std::vector<std::pair<long, int>> WaitForLeftProcesses(double max_seconds);
void StopWaitingForLeftProcesses();  // async-signal-safe

}  // namespace strata::cli
