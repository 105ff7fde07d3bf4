#include "collectives/device_sites.h"

#include "collectives/collective_kind.h"
#include "collectives/collective_recorder.h"

namespace strata::rt::collectives {
namespace fmt = strata::format;

void DeviceSites::Update(Cct::Unlocked& u) {
  const size_t n = u.GpuActivityCount();
  for (; seen_ < n; ++seen_) {
    const fmt::GpuActivityRecord& a = u.GpuActivityAt(seen_);
    if (a.kind != uint32_t(fmt::GpuActivityKind::kKernel)) continue;
    const fmt::CollectiveOp op = OpOfNcclKernel(u.StringAt(a.name));
    if (op == fmt::CollectiveOp::kOther) continue;
    auto [it, fresh] = sites_.emplace(std::make_pair(a.node, uint32_t(op)), 0);
    if (fresh) {
      fmt::CollectiveSiteRecord r{};
      r.node = a.node;
      r.op = uint32_t(op);
      r.name = a.name;  // the kernel's name: the device does not say more
      r.backend = u.String("nccl");
      r.dtype = u.String("");
      r.group_name = u.String("");
      r.flags = fmt::kCollectiveOnDevice;
      it->second = u.AddCollectiveSite(r);
    }
    fmt::CollectiveSiteRecord& site = u.CollectiveSite(it->second);
    const uint64_t dur = a.end_ns - a.start_ns;
    site.min_ns = site.count == 0 || dur < site.min_ns ? dur : site.min_ns;
    site.max_ns = dur > site.max_ns ? dur : site.max_ns;
    site.total_ns += dur;
    ++site.count;
  }
}

}  // namespace strata::rt::collectives
