// What `strata record` (native/cli) and the runtime it preloads agree on besides the STRATA_*
// profile settings: how a forwarded signal is told from the original, and the status file
// through which the runtime tells the CLI what became of the profile.
#pragma once

#include <cstdint>

namespace strata::record_protocol {

// `strata record` passes signals sent to it on to the target with sigqueue(); sival_ptr holds
// this tag in its upper 32 bits and the original sender's pid in the lower 32 bits, so the
// runtime can drop the copy when the target got the same signal directly (a kill to the
// process group reaches both).
inline constexpr uint64_t kForwardedSignalTag = 0x53545241u;  // "STRA"

// Environment: path of a file the runtime appends status lines to (created by the CLI).
inline constexpr const char* kStatusFileEnv = "STRATA_STATUS_FILE";

// Status lines, each ending in '\n':
//   "loaded <pid>"            the runtime started profiling (again after an exec)
//   "ending <reason>"         the final write began (reason as in meta `ended`)
//   "written"                 the profile file is in place
//   "not written: <why>"      the write failed; <why> is the error text
//   "snap: <message>"         what became of `--snap` (written where, or why not), one line
//   "reaped <pid> <status>"   a profiled process reaped its child <pid> (any process of the run
//                             writes these): <status> the wait status as a decimal int, so the
//                             CLI records in that child's profile how it ended (exit code or
//                             signal, SIGKILL included, which the child itself cannot see)
inline constexpr const char* kStatusLoaded = "loaded ";
inline constexpr const char* kStatusEnding = "ending ";
inline constexpr const char* kStatusWritten = "written";
inline constexpr const char* kStatusNotWritten = "not written: ";
inline constexpr const char* kStatusSnap = "snap: ";
inline constexpr const char* kStatusReaped = "reaped ";

}  // namespace strata::record_protocol
