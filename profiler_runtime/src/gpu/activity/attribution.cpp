#include "gpu/activity/attribution.h"

#include <cxxabi.h>

#include <cstdlib>

#include "gpu/cupti/region_capture.h"

namespace strata::rt::gpu {
namespace {

const char* CopyName(CopyKind k) {
  switch (k) {
    case CopyKind::kHtoD: return "memcpy HtoD";
    case CopyKind::kDtoH: return "memcpy DtoH";
    case CopyKind::kHtoA: return "memcpy HtoA";
    case CopyKind::kAtoH: return "memcpy AtoH";
    case CopyKind::kAtoA: return "memcpy AtoA";
    case CopyKind::kAtoD: return "memcpy AtoD";
    case CopyKind::kDtoA: return "memcpy DtoA";
    case CopyKind::kDtoD: return "memcpy DtoD";
    case CopyKind::kHtoH: return "memcpy HtoH";
    case CopyKind::kPtoP: return "memcpy PtoP";
    default: return "memcpy";
  }
}

}  // namespace

void Attribution::EnsureMetrics(Cct::Unlocked& u) {
  if (metrics_ready_) return;
  m_.api_time = u.Metric("api_time", "ns");
  m_.gpu_time = u.Metric("gpu_time", "ns");
  m_.grid = u.Metric("grid_size", "blocks");
  m_.block = u.Metric("block_size", "threads");
  m_.regs = u.Metric("registers_per_thread", "registers");
  m_.sshm = u.Metric("static_shared_bytes", "bytes");
  m_.dshm = u.Metric("dynamic_shared_bytes", "bytes");
  m_.occ = u.Metric("theoretical_occupancy", "fraction");
  m_.copy_bytes = u.Metric("memcpy_bytes", "bytes");
  m_.set_bytes = u.Metric("memset_bytes", "bytes");
  m_.sync_time = u.Metric("sync_time", "ns");
  metrics_ready_ = true;
}

uint32_t Attribution::AddApiCall(Cct::Unlocked& u, uint32_t* ids, int n, const char* api_name, uint64_t api_ns) {
  uint32_t& api_frame = api_frames_[api_name];
  if (api_frame == 0)
    api_frame = u.Frame(Cct::FrameKind::kGpuApi, strata::format::kNone, 0, api_name ? api_name : "<cuda api>", "", 0);
  ids[size_t(n)] = api_frame;
  uint32_t node = u.Node(ids, size_t(n) + 1);
  u.AddAt(node, m_.api_time, double(api_ns) * options_->windows.Scale());
  ++counts.api_calls;
  return node;
}

uint32_t Attribution::ChildNode(Cct::Unlocked& u, uint32_t parent, uint32_t frame) {
  uint64_t key = (uint64_t(parent) << 32) | frame;
  auto it = child_nodes_.find(key);
  if (it != child_nodes_.end()) return it->second;
  uint32_t n = u.Child(parent, frame);
  child_nodes_.emplace(key, n);
  return n;
}

uint32_t Attribution::UnattributedNode(Cct::Unlocked& u) {
  if (!unattributed_node_) {
    uint32_t f = u.Frame(Cct::FrameKind::kGpuApi, strata::format::kNone, 0, "<unattributed>", "", 0);
    unattributed_node_ = u.Node(&f, 1);
  }
  return unattributed_node_;
}

uint32_t Attribution::KernelFrame(Cct::Unlocked& u, const std::string& mangled) {
  auto it = kernel_frames_.find(mangled);
  if (it != kernel_frames_.end()) return it->second;
  int status = 0;
  char* dem = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  uint32_t f = u.Frame(Cct::FrameKind::kKernel, strata::format::kNone, 0,
                       status == 0 && dem ? dem : mangled.c_str(), "", 0);
  free(dem);
  kernel_frames_.emplace(mangled, f);
  return f;
}

void Attribution::Emit(Cct::Unlocked& u, const GpuActivity& ev, uint32_t api_node) {
  const double scale = options_->windows.Scale();  // sampled tracing: estimates of the whole run
  switch (ev.kind) {
    case GpuActivityKind::kKernel: {
      uint32_t node = ChildNode(u, api_node, KernelFrame(u, ev.name));
      u.AddAt(node, m_.gpu_time, double(ev.duration_ns) * scale);
      if (options_->pc_sampling) {
        kernel_nodes[ev.name][node] += double(ev.duration_ns) + 1.0;  // +1: zero-length kernels count
        if (options_->pc_serialized) kernel_of_corr[ev.correlation_id] = node;
      }
      if (options_->regions && regions::Captured(ev.correlation_id)) kernel_of_corr[ev.correlation_id] = node;
      u.AddAt(node, m_.grid, double(ev.grid_blocks));
      u.AddAt(node, m_.block, double(ev.block_threads));
      u.AddAt(node, m_.regs, double(ev.registers_per_thread));
      u.AddAt(node, m_.sshm, double(ev.static_shared_bytes));
      u.AddAt(node, m_.dshm, double(ev.dynamic_shared_bytes));
      double occ = occupancy_.Of(ev.device, ev.block_threads, ev.registers_per_thread,
                                 int64_t(ev.static_shared_bytes) + ev.dynamic_shared_bytes);
      if (occ >= 0) u.AddAt(node, m_.occ, occ);
      timeline.Add(u, ev, node);
      ++counts.kernels;
      break;
    }
    case GpuActivityKind::kMemcpy:
    case GpuActivityKind::kMemset: {
      bool copy = ev.kind == GpuActivityKind::kMemcpy;
      const char* name = copy ? CopyName(ev.copy_kind) : "memset";
      auto it = kernel_frames_.find(name);
      uint32_t f = it != kernel_frames_.end()
                       ? it->second
                       : kernel_frames_.emplace(name, u.Frame(Cct::FrameKind::kKernel, strata::format::kNone, 0, name, "", 0)).first->second;
      uint32_t node = ChildNode(u, api_node, f);
      u.AddAt(node, m_.gpu_time, double(ev.duration_ns) * scale);
      u.AddAt(node, copy ? m_.copy_bytes : m_.set_bytes, double(ev.bytes) * scale);
      timeline.Add(u, ev, node);
      ++(copy ? counts.copies : counts.sets);
      break;
    }
    case GpuActivityKind::kSync:
      u.AddAt(api_node, m_.sync_time, double(ev.duration_ns) * scale);
      ++counts.syncs;
      break;
    case GpuActivityKind::kNone:
      break;
  }
}

}  // namespace strata::rt::gpu
