#include "gpu/api/api_entry_queue.h"

namespace strata::rt::gpu {
namespace {

// 64 MiB of pending entries and path words at most; an entry counts at its size, 5 words.
constexpr size_t kMaxQueueWords = 8u << 20;
constexpr size_t kEntryWords = sizeof(ApiEntry) / sizeof(uint64_t);
static_assert(sizeof(ApiEntry) == 5 * sizeof(uint64_t), "the queue budget counts an entry as 5 words");

}  // namespace

ApiEntryQueue::ApiEntryQueue() {
  q_.entries.reserve((1 << 16) / kEntryWords);
  q_.words.reserve(1 << 16);
}

void ApiEntryQueue::Push(const ApiEntry& e, const uint64_t* words, int n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (q_.entries.size() * kEntryWords + q_.words.size() + kEntryWords + size_t(n) > kMaxQueueWords) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  q_.entries.push_back(e);
  q_.entries.back().path_depth = uint16_t(n);
  q_.words.insert(q_.words.end(), words, words + n);
}

void ApiEntryQueue::TakeAll(ApiEntryBatch* batch) {
  batch->clear();
  std::lock_guard<std::mutex> lock(mu_);
  std::swap(q_.entries, batch->entries);
  std::swap(q_.words, batch->words);
}

}  // namespace strata::rt::gpu
