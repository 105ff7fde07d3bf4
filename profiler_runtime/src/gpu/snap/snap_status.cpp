#include "gpu/snap/snap_status.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "common/log.h"
#include "strata/record_protocol.h"

namespace strata::rt::gpu::snap {

void Tell(const std::string& message) {
  Log("%s", message.c_str());
  const char* path = std::getenv(record_protocol::kStatusFileEnv);
  if (!path || !*path) return;
  int fd = ::open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  std::string line = std::string(record_protocol::kStatusSnap) + message;
  for (char& c : line)
    if (c == '\n') c = ' ';
  line += '\n';
  ssize_t ignored = ::write(fd, line.data(), line.size());  // one write: the line stays whole
  (void)ignored;
  ::close(fd);
}

}  // namespace strata::rt::gpu::snap
