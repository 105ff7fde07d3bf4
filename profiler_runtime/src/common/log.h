// Diagnostics to stderr with a fixed prefix. Not for use in signal handlers (uses stdio).
#pragma once

namespace strata::rt {
void Log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
}
