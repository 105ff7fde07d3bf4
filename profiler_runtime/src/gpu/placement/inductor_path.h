// Where a kernel Inductor generated goes, as frames: the model's frames of its first source
// trace, then, for a fused kernel (more than one line), one "fused (N lines)" operator frame
// carrying every line it computes as a typed list (the profile's frame source lines section,
// role kFused). Pure over the CCT: unit-tested on the recorded provenance of torch 2.11.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cct/cct.h"
#include "gpu/placement/inductor_provenance.h"

namespace strata::rt::gpu::inductor {

// The name a fused kernel's frame shows (a reader that does not know the section sees only it);
// the lines are the frame's typed list, never parsed back from this.
std::string FusedFrameName(size_t lines);

// Appends to `ids` the frames of a kernel call with these traces (non-empty).
void AppendPlacedFrames(Cct::Unlocked& u, const std::vector<SourceTrace>& traces, std::vector<uint32_t>* ids);

}  // namespace strata::rt::gpu::inductor
