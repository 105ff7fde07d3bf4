// Snap: at the N-th launch of a matching kernel (snap_request.h), the launch's driver-API entry
// synchronizes the context and writes the module image, configuration, parameter buffer and the
// contents of every device allocation the parameters reach into a snapshot file
// (docs/snapshot-format.md); its exit synchronizes again and adds the same allocations after
// the kernel and the launch's own time. With STRATA_SNAP_PRELUDES=N the last N launches on each
// stream are kept until then (kernel, configuration, parameters) and the ones just before the
// snapped launch go into the snapshot too, so that a replay can run them first (`--l2 prelude`).
// One launch per process; the program runs on unchanged (slower only around that launch).
#pragma once

#include <cupti.h>

#include <cstddef>

namespace strata::rt::gpu::snap {

bool Configure();  // reads the environment; false when off
// True while the snap itself calls the driver (its calls are not the program's).
bool InternalCall();
void OnModuleLoaded(const void* image, size_t size);
// Driver-domain cuLaunchKernel[Ex][_ptsz] callbacks, on the launching thread.
void OnLaunchEnter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
void OnLaunchExit(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);

}  // namespace strata::rt::gpu::snap
