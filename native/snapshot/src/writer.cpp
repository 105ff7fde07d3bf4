#include "strata/snapshot/writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "byte_codec.h"

namespace strata::snapshot {

bool Writer::Fail(const std::string& why) {
  if (error_.empty()) error_ = why;
  Abort();
  return false;
}

bool Writer::Open(const std::string& path) {
  path_ = path;
  temp_ = path + ".tmp-XXXXXX";
  int fd = ::mkostemp(temp_.data(), O_CLOEXEC);
  if (fd < 0) {
    error_ = "cannot create " + temp_ + ": " + std::strerror(errno);
    temp_.clear();
    return false;
  }
  f_ = ::fdopen(fd, "wb");
  if (!f_) {
    ::close(fd);
    return Fail("fdopen: " + std::string(std::strerror(errno)));
  }
  uint32_t head[2] = {kVersion, 0};
  return Put(kMagic, sizeof kMagic) && Put(head, sizeof head);
}

bool Writer::Put(const void* bytes, size_t size) {
  if (!f_) return Fail("the snapshot is not open");
  if (size && std::fwrite(bytes, 1, size, f_) != size) return Fail("write " + temp_ + ": " + std::strerror(errno));
  written_ += size;
  return true;
}

bool Writer::Section(Tag tag, uint64_t length) {
  if (pending_) return Fail("a region's contents were cut short");
  uint32_t head[2] = {uint32_t(tag), 0};
  ++sections_;
  return Put(head, sizeof head) && Put(&length, sizeof length);
}

namespace {

void PutConfig(codec::Out& l, const LaunchConfig& c, const std::vector<LaunchAttribute>& attributes) {
  for (uint32_t v : c.grid) l.Pod(v);
  for (uint32_t v : c.block) l.Pod(v);
  for (uint32_t v : c.cluster) l.Pod(v);
  l.Pod(c.shared_bytes);
  l.Pod(uint32_t(c.ex));
  l.Pod(uint64_t(attributes.size()));
  for (const auto& a : attributes) {
    l.Pod(a.id);
    l.Pod(a.value);
  }
}

void PutParams(codec::Out& p, const std::vector<Param>& params, const std::string& buffer,
               const std::vector<PointerWord>& pointers) {
  p.Pod(uint64_t(params.size()));
  for (const auto& q : params) {
    p.Pod(q.offset);
    p.Pod(q.size);
  }
  p.Str(buffer);
  p.Pod(uint64_t(pointers.size()));
  for (const auto& w : pointers) {
    p.Pod(w.in_region);
    p.Pod(w.offset);
    p.Pod(w.value);
    p.Pod(uint32_t(w.kind));
    p.Pod(w.region);
    p.Pod(uint32_t(w.encoding));
  }
}

}  // namespace

bool Writer::WritePreludes(const Snapshot& s, const std::vector<std::string>& images) {
  codec::Out b;
  b.Str(s.preludes_why_not);
  b.Pod(uint64_t(s.preludes.size()));
  for (const Prelude& q : s.preludes) {
    if (q.image >= int32_t(images.size())) return Fail("a prelude names an image that is not written");
    b.Str(q.kernel);
    PutConfig(b, q.launch, q.launch_attributes);
    PutParams(b, q.params, q.param_buffer, q.pointers);
    b.Pod(q.image);
  }
  if (!Section(Tag::kPrelude, b.bytes().size()) || !Put(b.bytes().data(), b.bytes().size())) return false;
  for (const std::string& image : images)
    if (!Section(Tag::kPreludeImage, image.size()) || !Put(image.data(), image.size())) return false;
  return true;
}

bool Writer::WriteHead(const Snapshot& s, const void* image, size_t image_size) {
  codec::Out l;
  l.Str(s.device.name);
  l.Pod(int32_t(s.device.cc_major));
  l.Pod(int32_t(s.device.cc_minor));
  l.Pod(int32_t(s.device.driver_version));
  l.Pod(s.device.total_memory);
  l.Str(s.kernel);
  l.Pod(s.launch_index);
  l.Str(s.command);
  l.Pod(s.pid);
  l.Pod(s.image_candidates);
  PutConfig(l, s.launch, s.launch_attributes);
  l.Pod(uint64_t(s.function_attributes.size()));
  for (const auto& a : s.function_attributes) {
    l.Pod(a.id);
    l.Pod(a.value);
  }
  codec::Out p;
  PutParams(p, s.params, s.param_buffer, s.pointers);
  codec::Out r;
  r.Pod(s.bytes_bound);
  r.Pod(uint64_t(s.regions.size()));
  for (const auto& g : s.regions) {
    r.Pod(g.base);
    r.Pod(g.size);
    r.Pod(uint32_t(g.kind));
    r.Pod(uint32_t(g.saved));
  }
  return Section(Tag::kLaunch, l.bytes().size()) && Put(l.bytes().data(), l.bytes().size()) &&
         Section(Tag::kImage, image_size) && Put(image, image_size) &&
         Section(Tag::kParams, p.bytes().size()) && Put(p.bytes().data(), p.bytes().size()) &&
         Section(Tag::kRegions, r.bytes().size()) && Put(r.bytes().data(), r.bytes().size());
}

bool Writer::BeginRegionData(Tag tag, uint32_t region, uint64_t size) {
  uint32_t head[2] = {region, 0};
  if (!Section(tag, size + sizeof head) || !Put(head, sizeof head)) return false;
  pending_ = size;
  return true;
}

bool Writer::Append(const void* bytes, size_t size) {
  if (size > pending_) return Fail("more region bytes than announced");
  pending_ -= size;
  return Put(bytes, size);
}

bool Writer::WriteTiming(uint64_t in_run_ns) {
  return Section(Tag::kTiming, sizeof in_run_ns) && Put(&in_run_ns, sizeof in_run_ns);
}

bool Writer::Commit() {
  uint64_t n = sections_;
  if (!Section(Tag::kEnd, sizeof n) || !Put(&n, sizeof n)) return false;
  if (std::fflush(f_) != 0 || ::fsync(::fileno(f_)) != 0) return Fail("flush " + temp_ + ": " + std::strerror(errno));
  std::fclose(f_);
  f_ = nullptr;
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    std::string why = "rename to " + path_ + ": " + std::strerror(errno);
    ::unlink(temp_.c_str());
    temp_.clear();
    return Fail(why);
  }
  temp_.clear();
  return true;
}

void Writer::Abort() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

}  // namespace strata::snapshot
