#include "gpu/snap/module_images.h"

#include <cstring>
#include <mutex>
#include <string_view>
#include <vector>

namespace strata::rt::gpu::snap {
namespace {

std::mutex g_mu;
std::vector<std::string>* g_images = nullptr;  // in load order; leaked (callbacks run until exit)
uint64_t g_seen = 0;
uint64_t g_other_bytes = 0;  // kept images without the key

bool Contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

// A symbol's name in the ELF string table: NUL before and after it.
std::string Symbol(const std::string& kernel) { return std::string(1, '\0') + kernel + std::string(1, '\0'); }

}  // namespace

void KeepImage(const std::string& key, bool others, const void* image, size_t size) {
  if (!image || !size) return;
  std::string_view bytes(static_cast<const char*>(image), size);
  std::lock_guard<std::mutex> lock(g_mu);
  ++g_seen;
  const bool named = key.empty() || Contains(bytes, key);
  if (!named && (!others || g_other_bytes + size > kOtherImagesBudget)) return;
  if (!g_images) g_images = new std::vector<std::string>();
  for (const std::string& kept : *g_images)
    if (kept.size() == size && std::memcmp(kept.data(), image, size) == 0) return;
  g_images->emplace_back(bytes);
  if (!named) g_other_bytes += size;
}

bool ImageDefines(const std::string& image, const std::string& kernel) { return Contains(image, Symbol(kernel)); }

std::string ImageDefining(const std::string& kernel, uint32_t* candidates) {
  std::lock_guard<std::mutex> lock(g_mu);
  *candidates = 0;
  if (!g_images) return "";
  const std::string symbol = Symbol(kernel);
  const std::string* newest = nullptr;
  for (const std::string& image : *g_images)
    if (Contains(image, symbol)) {
      ++*candidates;
      newest = &image;
    }
  return newest ? *newest : "";
}

uint64_t ImagesKept() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_images ? g_images->size() : 0;
}

uint64_t ImagesSeen() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_seen;
}

}  // namespace strata::rt::gpu::snap
