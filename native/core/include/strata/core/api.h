// Public API of the Strata analysis core. Plain C++17; no Node, no VS Code.
// The CLI (native/cli) and the N-API addon (native/addon) are thin layers over exactly this.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::core {

// One line, suitable for a terminal or a VS Code notification ("not a Strata profile: ...").
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ViewKind { kTopDown, kBottomUp, kFlat };

struct MetricInfo {
  std::string name;   // "cpu_time", "wall_time", ...
  std::string unit;   // "ns", "count", "bytes"
};

// Statistics of one metric at one view node. inclusive_* covers the subtree (for bottom-up
// and flat views: every sample whose path contains the frame, counted once per sample path),
// exclusive_* the samples that ended exactly here.
struct NodeMetric {
  double inclusive = 0, exclusive = 0;
  uint64_t count = 0;                  // exclusive sample/event count
  double min = 0, max = 0, mean = 0, std = 0;  // of exclusive values
};

// A resolved frame: what a user sees. Kind strings: "root", "python", "native", "operator",
// "gpu_api", "kernel", "pc", "region".
struct FrameInfo {
  std::string kind;
  std::string name;     // symbolized function, or "module+0xOFF" when nothing is known
  std::string file;     // absolute source path or "" when unknown
  uint32_t line = 0;    // 0 when unknown
  std::string module;   // module path or ""
  uint64_t address = 0; // address inside the module for native frames
};

// A view is a tree in preorder: parent[i] < i, parent[0] == -1 (the root).
// Children of a node appear in descending inclusive order of the view's primary metric.
struct View {
  ViewKind kind;
  std::vector<int32_t> parent;
  std::vector<FrameInfo> frames;            // per view node
  std::vector<std::vector<NodeMetric>> metrics;  // [node][metric index]
};

class Profile {
 public:
  // Opens (mmap) and validates. Throws Error with a one-line message on a bad, truncated or
  // hostile file; never crashes.
  static std::unique_ptr<Profile> Open(const std::string& path);
  // Same validation over bytes in memory (the fuzzer and tests use this).
  static std::unique_ptr<Profile> FromBytes(std::vector<unsigned char> bytes);
  virtual ~Profile() = default;

  virtual uint32_t version() const = 0;
  virtual std::vector<std::pair<std::string, std::string>> meta() const = 0;
  virtual std::optional<std::string> meta(const std::string& key) const = 0;
  virtual const std::vector<MetricInfo>& metrics() const = 0;
  virtual size_t node_count() const = 0;     // nodes of the stored calling context tree

  // Builds a view; native frames are symbolized (DWARF through LLVM, cached per module).
  // `primary_metric` orders children. Thread-safe for concurrent calls.
  virtual View BuildView(ViewKind kind, size_t primary_metric = 0) const = 0;
};

ViewKind ParseViewKind(const std::string& s);  // "top-down" | "bottom-up" | "flat"; throws Error
const char* ViewKindName(ViewKind k);

}  // namespace strata::core
