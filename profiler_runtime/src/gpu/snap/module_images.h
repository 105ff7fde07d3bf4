// The module images that may hold the kernel to snap, or the kernel launched just before it.
// The driver has no way back from a loaded function to the image it came from, so every module
// image CUPTI reports at load (resource callback MODULE_LOADED) that contains the request's key
// is copied, and, when the launches before the snapped one are asked for (they can be any
// kernel), the others too while they fit a budget; at the snap the images whose symbol table names the kernel are the
// candidates, the newest loaded taken. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace strata::rt::gpu::snap {

// Images without the key are kept while all such together stay under this many bytes.
inline constexpr uint64_t kOtherImagesBudget = 512ull << 20;

// `others`: also images without the key (for the launches before the snapped one).
void KeepImage(const std::string& key, bool others, const void* image, size_t size);
// Whether `image`'s symbol table names `kernel` (mangled).
bool ImageDefines(const std::string& image, const std::string& kernel);
// The newest kept image that defines `kernel` (mangled); `candidates` gets how many do.
// "" when none does.
std::string ImageDefining(const std::string& kernel, uint32_t* candidates);
uint64_t ImagesKept();
uint64_t ImagesSeen();

}  // namespace strata::rt::gpu::snap
