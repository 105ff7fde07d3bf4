#include "gpu/cupti/activity_decode.h"

namespace strata::rt::gpu {
namespace {

CopyKind CopyKindOf(uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return CopyKind::kHtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return CopyKind::kDtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return CopyKind::kHtoA;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return CopyKind::kAtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return CopyKind::kAtoA;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return CopyKind::kAtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return CopyKind::kDtoA;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return CopyKind::kDtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return CopyKind::kHtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return CopyKind::kPtoP;
    default: return CopyKind::kOther;
  }
}

template <typename R>
void DecodeTimes(const R* r, GpuActivity* ev) {
  ev->start_ns = r->start;
  ev->end_ns = r->end > r->start ? r->end : r->start;
  ev->duration_ns = ev->end_ns - ev->start_ns;
}

}  // namespace

bool DecodeActivity(const CUpti_Activity* r, GpuActivity* ev) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      ev->kind = GpuActivityKind::kKernel;
      ev->correlation_id = k->correlationId;
      ev->device = k->deviceId;
      ev->context = k->contextId;
      ev->stream = k->streamId;
      DecodeTimes(k, ev);
      ev->grid[0] = uint32_t(k->gridX), ev->grid[1] = uint32_t(k->gridY), ev->grid[2] = uint32_t(k->gridZ);
      ev->block[0] = uint32_t(k->blockX), ev->block[1] = uint32_t(k->blockY), ev->block[2] = uint32_t(k->blockZ);
      ev->grid_blocks = int64_t(k->gridX) * k->gridY * k->gridZ;
      ev->block_threads = int64_t(k->blockX) * k->blockY * k->blockZ;
      ev->registers_per_thread = k->registersPerThread;
      ev->static_shared_bytes = k->staticSharedMemory;
      ev->dynamic_shared_bytes = k->dynamicSharedMemory;
      ev->name = k->name ? k->name : "<kernel>";
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      ev->kind = GpuActivityKind::kMemcpy;
      ev->copy_kind = CopyKindOf(m->copyKind);
      ev->correlation_id = m->correlationId;
      ev->device = m->deviceId;
      ev->context = m->contextId;
      ev->stream = m->streamId;
      DecodeTimes(m, ev);
      ev->bytes = m->bytes;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      ev->kind = GpuActivityKind::kMemset;
      ev->correlation_id = m->correlationId;
      ev->device = m->deviceId;
      ev->context = m->contextId;
      ev->stream = m->streamId;
      DecodeTimes(m, ev);
      ev->bytes = m->bytes;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(r);
      if (s->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT) return false;
      ev->kind = GpuActivityKind::kSync;
      ev->correlation_id = s->correlationId;
      DecodeTimes(s, ev);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace strata::rt::gpu
