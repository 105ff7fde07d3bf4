// Status lines for `strata record` (strata/record_protocol.h): that the runtime started, that
// the final write began, and whether the profile was written or why not, so the CLI reports
// what really happened when no profile appears.
#pragma once

namespace strata::rt::run_status {

// Normal context, at start: remembers the status file named in the environment (if any) and
// appends "loaded <pid>".
void Open();
// Async-signal-safe: appends kStatusEnding + `reason`.
void Ending(const char* reason);
// Appends kStatusWritten, or kStatusNotWritten + `why`.
void Written();
void NotWritten(const char* why);
// A forked child: its status is not the first process's.
void Close();
// Any profiled process (normal context, at start): remembers the status file for Reaped.
void OpenForReaping();
// Async-signal-safe: appends kStatusReaped "<pid> <wait status>".
void Reaped(long pid, int status);

}  // namespace strata::rt::run_status
