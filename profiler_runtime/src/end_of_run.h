// Ending the run from outside runtime.cpp: the interposed process exits call this so the
// profile is written before the process goes.
#pragma once

namespace strata::rt {

// Normal context. Stops sampling and writes the profile (first reason wins; a no-op in
// children, forks and once written). `ended` becomes meta `ended`.
void EndBeforeProcessExit(const char* ended);

}  // namespace strata::rt
