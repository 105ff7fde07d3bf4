// Writes a snapshot in pieces as its parts become known (the runtime copies the "before" state
// at the launch's entry and the "after" state at its exit): a temporary file beside the target,
// renamed into place by Commit, removed by Abort or the destructor. Nothing half-written stays.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "strata/snapshot/snapshot.h"

namespace strata::snapshot {

class Writer {
 public:
  Writer() = default;
  ~Writer() { Abort(); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  bool Open(const std::string& path);
  // Launch, image, parameters and the region table (s.image, before, after are ignored).
  bool WriteHead(const Snapshot& s, const void* image, size_t image_size);
  // The launches before it (s.preludes, or why there are none) and the images they name.
  bool WritePreludes(const Snapshot& s, const std::vector<std::string>& images);
  // One region's contents, in pieces: Begin, Append until `size` bytes, no End needed.
  bool BeginRegionData(Tag before_or_after, uint32_t region, uint64_t size);
  bool Append(const void* bytes, size_t size);
  bool WriteTiming(uint64_t in_run_ns);
  // The end section, flush, rename over the target. `final_path` receives where it went.
  bool Commit();
  void Abort();

  const std::string& error() const { return error_; }  // one line, when a call returned false
  uint64_t bytes_written() const { return written_; }

 private:
  bool Section(Tag tag, uint64_t length);
  bool Put(const void* bytes, size_t size);
  bool Fail(const std::string& why);

  std::FILE* f_ = nullptr;
  std::string path_, temp_, error_;
  uint64_t written_ = 0, pending_ = 0;  // bytes still owed to the open data section
  uint32_t sections_ = 0;
};

}  // namespace strata::snapshot
