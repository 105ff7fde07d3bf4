// Process-wide table of Python code names: (file, qualified name) -> code id, the id carried by
// interned Python frame words (sample.h GlobalPyWord). Normal code only (a mutex, allocation):
// the aggregator interns what the SIGPROF handler left in the threads' name rings, walks outside
// the handler (GPU launch paths, operator contexts) intern directly.
//
// Memory: one entry per distinct (file, name) pair the run has seen (files stored once), about
// 60 bytes plus the name; at most kMaxCodes entries (the word's 26-bit field), beyond which
// names read "<?>" and are counted (Overflowed()).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::rt::python {

inline constexpr uint32_t kUnknownCodeId = 0;       // ("<?>", "<?>")
inline constexpr uint32_t kMaxCodes = 1u << 26;

uint32_t InternCode(std::string_view file, std::string_view name);
// False for an unknown id.
bool CodeOf(uint32_t id, std::string* file, std::string* name);
uint64_t CodesInterned();
uint64_t Overflowed();
// Held across fork() (pthread_atfork) so a forked child never inherits the table mid-change.
void LockForFork();
void UnlockAfterFork();

}  // namespace strata::rt::python
