// The images of the CUDA modules loaded while PC sampling is on, kept out of the process's
// memory until the end: which functions get samples is known only then, and a training run
// loads hundreds of MB of library modules (cuDNN, cuBLAS) of which a few kernels run. Each new
// image (by CUPTI's cubin CRC) is appended to an unlinked temporary file; at write time the
// images of the modules with samples are read back, one at a time. Memory: one entry per module.
// Not thread-safe: pc_sampling.cpp calls it under its mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <unordered_map>

namespace strata::rt::gpu::pcs {

class CubinStore {
 public:
  CubinStore() = default;
  ~CubinStore();
  CubinStore(const CubinStore&) = delete;
  CubinStore& operator=(const CubinStore&) = delete;

  // Keeps the image unless one with this CRC is kept already. Where no temporary file can be
  // written (no space, no writable folder) the image is kept in memory, and Problem() says so.
  void Add(uint64_t crc, const void* bytes, size_t size);
  bool Has(uint64_t crc) const { return entries_.count(crc) != 0; }
  // The image as loaded, "" when it is not kept or cannot be read back.
  std::string Read(uint64_t crc) const;

  size_t count() const { return entries_.size(); }
  uint64_t bytes() const { return bytes_; }  // all images kept, on disk and in memory
  uint64_t bytes_in_memory() const { return bytes_in_memory_; }
  const std::string& Problem() const { return problem_; }

 private:
  struct Entry {
    int fd = -1;          // the file holding it (a forked child writes its own), -1: in memory
    uint64_t offset = 0;
    uint64_t size = 0;
    std::string memory;   // the image, when no file could take it
  };
  bool EnsureFile();

  std::unordered_map<uint64_t, Entry> entries_;
  int fd_ = -1;
  pid_t owner_ = 0;       // the process that writes fd_
  uint64_t end_ = 0;      // bytes written to fd_
  uint64_t bytes_ = 0, bytes_in_memory_ = 0;
  std::string problem_;   // first failure, one line
};

}  // namespace strata::rt::gpu::pcs
