#include "atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "strata/core/api.h"

namespace strata::core::detail {

void WriteFileAtomically(const std::string& path, const void* data, size_t size, mode_t mode,
                         const std::string& what) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](int e) { return Error("cannot write " + what + " " + path + ": " + std::strerror(e)); };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 0777);
  if (fd < 0) throw fail(errno);
  const auto* bytes = static_cast<const unsigned char*>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw fail(e);
    }
    done += size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw fail(e);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw fail(e);
  }
}

}  // namespace strata::core::detail
