#include "gpu/cupti/cubin_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace strata::rt::gpu::pcs {
namespace {

// $TMPDIR, else /tmp: an unlinked file, so nothing is left behind however the process ends.
int OpenUnlinkedFile(std::string* why) {
  const char* dir = getenv("TMPDIR");
  std::string folder = dir && *dir ? dir : "/tmp";
  int fd = -1;
#ifdef O_TMPFILE
  fd = open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string path = folder + "/strata-cubins-XXXXXX";
  fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) {
    *why = "cannot create a temporary file in " + folder + ": " + strerror(errno);
    return -1;
  }
  unlink(path.c_str());
  return fd;
}

bool WriteAll(int fd, const char* p, size_t n, uint64_t offset) {
  while (n) {
    ssize_t w = pwrite(fd, p, n, off_t(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= size_t(w), offset += uint64_t(w);
  }
  return true;
}

}  // namespace

CubinStore::~CubinStore() {
  // Entries may name an inherited file too; each descriptor is closed once.
  if (fd_ >= 0 && owner_ == getpid()) close(fd_);
}

bool CubinStore::EnsureFile() {
  // After fork the file is shared with the parent, which goes on appending at its own end.
  if (fd_ >= 0 && owner_ == getpid()) return true;
  if (!problem_.empty() && fd_ < 0) return false;
  std::string why;
  fd_ = OpenUnlinkedFile(&why);
  owner_ = getpid();
  end_ = 0;
  if (fd_ < 0 && problem_.empty()) problem_ = why + "; module images kept in memory";
  return fd_ >= 0;
}

void CubinStore::Add(uint64_t crc, const void* bytes, size_t size) {
  if (!bytes || !size || entries_.count(crc)) return;
  Entry e;
  e.size = size;
  if (EnsureFile() && WriteAll(fd_, static_cast<const char*>(bytes), size, end_)) {
    e.fd = fd_;
    e.offset = end_;
    end_ += size;
  } else {
    if (fd_ >= 0 && problem_.empty())
      problem_ = std::string("cannot write module images to a temporary file: ") + strerror(errno) +
                 "; later ones kept in memory";
    e.memory.assign(static_cast<const char*>(bytes), size);
    bytes_in_memory_ += size;
  }
  bytes_ += size;
  entries_.emplace(crc, std::move(e));
}

std::string CubinStore::Read(uint64_t crc) const {
  auto it = entries_.find(crc);
  if (it == entries_.end()) return {};
  const Entry& e = it->second;
  if (e.fd < 0) return e.memory;
  std::string out(e.size, '\0');
  size_t done = 0;
  while (done < out.size()) {
    ssize_t r = pread(e.fd, &out[done], out.size() - done, off_t(e.offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return {};
    done += size_t(r);
  }
  return out;
}

}  // namespace strata::rt::gpu::pcs
