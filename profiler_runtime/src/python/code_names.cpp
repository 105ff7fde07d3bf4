#include "python/code_names.h"

#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace strata::rt::python {
namespace {

struct Table {
  std::mutex mu;
  std::unordered_map<std::string, uint32_t> file_ids;
  std::deque<const std::string*> files;
  // Key: 4 bytes of file id, then the name. Values point into the map's stable nodes.
  std::unordered_map<std::string, uint32_t> code_ids;
  std::deque<const std::string*> codes;
  uint64_t overflowed = 0;
};

// Leaked on purpose: used until the last write, after static destructors may have run.
Table& T() {
  static Table* t = [] {
    auto* t = new Table();
    t->files.push_back(&t->file_ids.emplace("<?>", 0).first->first);
    std::string key(4, '\0');
    key += "<?>";
    t->codes.push_back(&t->code_ids.emplace(key, 0).first->first);
    return t;
  }();
  return *t;
}

}  // namespace

uint32_t InternCode(std::string_view file, std::string_view name) {
  Table& t = T();
  std::lock_guard<std::mutex> lock(t.mu);
  auto f = t.file_ids.find(std::string(file));
  if (f == t.file_ids.end()) {
    f = t.file_ids.emplace(std::string(file), uint32_t(t.files.size())).first;
    t.files.push_back(&f->first);
  }
  std::string key(reinterpret_cast<const char*>(&f->second), 4);
  key.append(name);
  auto it = t.code_ids.find(key);
  if (it != t.code_ids.end()) return it->second;
  if (t.codes.size() >= kMaxCodes) {
    ++t.overflowed;
    return kUnknownCodeId;
  }
  it = t.code_ids.emplace(std::move(key), uint32_t(t.codes.size())).first;
  t.codes.push_back(&it->first);
  return it->second;
}

bool CodeOf(uint32_t id, std::string* file, std::string* name) {
  Table& t = T();
  std::lock_guard<std::mutex> lock(t.mu);
  if (id >= t.codes.size()) return false;
  const std::string& key = *t.codes[id];
  uint32_t fid;
  memcpy(&fid, key.data(), 4);
  *file = *t.files[fid];
  name->assign(key, 4, std::string::npos);
  return true;
}

uint64_t CodesInterned() {
  Table& t = T();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.codes.size() - 1;
}

uint64_t Overflowed() {
  Table& t = T();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.overflowed;
}

void LockForFork() { T().mu.lock(); }
void UnlockAfterFork() { T().mu.unlock(); }

}  // namespace strata::rt::python
