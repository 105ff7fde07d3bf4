// Tells `strata record` what became of the snap: one "snap: <message>" line appended to the
// status file (strata/record_protocol.h), which the CLI prints; and the runtime's log.
#pragma once

#include <string>

namespace strata::rt::gpu::snap {

void Tell(const std::string& message);

}  // namespace strata::rt::gpu::snap
