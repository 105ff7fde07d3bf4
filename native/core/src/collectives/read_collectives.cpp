#include "strata/core/collectives.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "strata/core/api.h"
#include "strata/format/reader.h"
#include "../meta/meta_number.h"
#include "../views/frame_origin.h"

namespace strata::core {
namespace fmt = strata::format;
namespace {

std::string MetaValue(const fmt::ProfileReader& r, const char* key) {
  std::string value;
  for (const fmt::MetaEntry& m : r.meta())
    if (r.string(m.key) == key) value = std::string(r.string(m.value));  // the last one wins
  return value;
}

bool ParseU64(const std::string& s, uint64_t* out) {
  const auto v = MetaUnsigned(s);
  if (v) *out = *v;
  return v.has_value();
}

}  // namespace

const char* CollectiveOpName(fmt::CollectiveOp op) {
  switch (op) {
    case fmt::CollectiveOp::kAllReduce: return "all_reduce";
    case fmt::CollectiveOp::kAllGather: return "all_gather";
    case fmt::CollectiveOp::kBroadcast: return "broadcast";
    case fmt::CollectiveOp::kReduceScatter: return "reduce_scatter";
    case fmt::CollectiveOp::kReduce: return "reduce";
    case fmt::CollectiveOp::kGather: return "gather";
    case fmt::CollectiveOp::kScatter: return "scatter";
    case fmt::CollectiveOp::kAllToAll: return "all_to_all";
    case fmt::CollectiveOp::kBarrier: return "barrier";
    case fmt::CollectiveOp::kSend: return "send";
    case fmt::CollectiveOp::kRecv: return "recv";
    case fmt::CollectiveOp::kOther: break;
  }
  return "other";
}

Collectives ReadCollectives(const unsigned char* data, size_t size) {
  fmt::ProfileReader r;
  try {
    r = fmt::ProfileReader::Parse(data, size);
  } catch (const fmt::ReadError& e) {
    throw Error(e.what());
  }
  if (r.collectives_version() > fmt::kCollectivesVersion)
    throw Error("the profile's collectives are of format version " + std::to_string(r.collectives_version()) +
                ", newer than this Strata reads (" + std::to_string(fmt::kCollectivesVersion) + ")");
  Collectives out;
  uint64_t unix_ns = 0, mono_ns = 0;
  if (ParseU64(MetaValue(r, "start_unix_ns"), &unix_ns) && ParseU64(MetaValue(r, "start_monotonic_ns"), &mono_ns)) {
    out.has_wall_clock = true;
    out.unix_minus_monotonic_ns = int64_t(unix_ns - mono_ns);
  }
  const fmt::CollectivesHeader* h = r.collectives();
  if (!h) return out;
  out.present = true;
  out.calls_dropped = h->calls_dropped;
  out.call_limit = h->call_limit;
  const auto nodes = r.nodes();
  const auto frames = r.frames();
  for (const fmt::CollectiveSiteRecord& s : r.collective_sites()) {
    CollectiveSite c;
    c.node = s.node;
    c.op = s.op <= uint32_t(fmt::CollectiveOp::kRecv) ? fmt::CollectiveOp(s.op) : fmt::CollectiveOp::kOther;
    c.name = std::string(r.string(s.name));
    c.backend = std::string(r.string(s.backend));
    c.dtype = std::string(r.string(s.dtype));
    c.group_name = std::string(r.string(s.group_name));
    c.group_size = s.group_size;
    c.on_device = s.flags & fmt::kCollectiveOnDevice;
    c.seq_is_issue_order = s.flags & fmt::kCollectiveSeqIssueOrder;
    c.elements = s.elements;
    c.bytes = s.bytes;
    c.count = s.count;
    c.total_ns = s.total_ns;
    c.min_ns = s.min_ns;
    c.max_ns = s.max_ns;
    // The reader checked every node's parent < node and frame in range: this walk ends.
    if (s.node != 0) c.frame_name = std::string(r.string(frames[nodes[s.node].frame].name));
    for (uint32_t n = s.node; n != 0 && n != fmt::kNone; n = nodes[n].parent) {
      const fmt::FrameRecord& f = frames[nodes[n].frame];
      if (f.kind != uint32_t(fmt::FrameKind::kPython)) continue;
      std::string file(r.string(f.file));
      if (c.python_file.empty() && c.python_line == 0) {
        c.python_file = file;
        c.python_function = std::string(r.string(f.name));
        c.python_line = f.line;
      }
      if (detail::ClassifyFrame(f.kind, "", file, false) == FrameOrigin::kUser) {
        c.user_file = file;
        c.user_function = std::string(r.string(f.name));
        c.user_line = f.line;
        break;
      }
    }
    out.sites.push_back(std::move(c));
  }
  for (const fmt::CollectiveCallRecord& k : r.collective_calls())
    out.calls.push_back(CollectiveCall{k.start_ns, k.end_ns, k.seq, k.site});
  return out;
}

Collectives ReadCollectives(const std::string& profile_path) {
  int fd = ::open(profile_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + profile_path + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw Error("cannot stat " + profile_path + ": " + std::strerror(err));
  }
  size_t size = size_t(st.st_size);
  if (size == 0) {
    ::close(fd);
    return ReadCollectives(nullptr, 0);
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw Error("cannot map " + profile_path + ": " + std::strerror(errno));
  try {
    Collectives c = ReadCollectives(static_cast<const unsigned char*>(map), size);
    ::munmap(map, size);
    return c;
  } catch (...) {
    ::munmap(map, size);
    throw;
  }
}

}  // namespace strata::core
