// The module images that may hold the kernel to snap. The driver has no way back from a loaded
// function to the image it came from, so every module image CUPTI reports at load (resource
// callback MODULE_LOADED) that contains the request's key is copied; at the snap the images
// whose symbol table names the kernel are the candidates, the newest loaded taken. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace strata::rt::gpu::snap {

void KeepImageIfNamed(const std::string& key, const void* image, size_t size);
// The newest kept image that defines `kernel` (mangled); `candidates` gets how many do.
// "" when none does.
std::string ImageDefining(const std::string& kernel, uint32_t* candidates);
uint64_t ImagesKept();
uint64_t ImagesSeen();

}  // namespace strata::rt::gpu::snap
