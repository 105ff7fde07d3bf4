// One snapped kernel launch (docs/snapshot-format.md): what `strata record --snap` writes and
// `strata replay` reads. Plain C++17, no CUDA headers: the runtime writes it, the replay engine,
// the CLI and the tests read it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::snapshot {

inline constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'S', 'N', 'A', 'P'};
inline constexpr uint32_t kVersion = 1;

// A bad or unreadable snapshot: what() is one line naming the cause.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The section tags, in the order the runtime writes them (docs/snapshot-format.md).
enum class Tag : uint32_t {
  kLaunch = 1,   // device, kernel, configuration, attributes
  kImage = 2,    // the module image the kernel was loaded from
  kParams = 3,   // parameter layout and buffer, the words resolved as pointers
  kRegions = 4,  // the device memory ranges the parameters point into
  kBefore = 5,   // one region's contents before the launch
  kAfter = 6,    // ... after it
  kTiming = 7,   // the snapped launch's own time
  kPrelude = 8,       // the launch before it on its stream (or why there is none)
  kPreludeImage = 9,  // that launch's module image, when not the snapped kernel's
  kEnd = 0xFFFF,
};

struct Device {
  std::string name;          // cuDeviceGetName
  int cc_major = 0, cc_minor = 0;
  int driver_version = 0;    // cuDriverGetVersion (13000 = 13.0)
  uint64_t total_memory = 0;
};

struct LaunchConfig {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t cluster[3] = {0, 0, 0};  // 0: no cluster attribute
  uint32_t shared_bytes = 0;        // dynamic shared memory
  bool ex = false;                  // launched with cuLaunchKernelEx
};

// A cuLaunchKernelEx attribute, its value as the driver's 64-byte union.
struct LaunchAttribute {
  uint32_t id = 0;
  uint8_t value[64] = {};
};

// A function attribute (CUfunction_attribute) as read at the launch; the settable ones are
// applied again on replay.
struct FunctionAttribute {
  int32_t id = 0;
  int32_t value = 0;
};

struct Param {
  uint32_t offset = 0, size = 0;  // cuFuncGetParamInfo
};

enum class WordKind : uint32_t {
  kDevice = 1,      // inside a device (or managed) allocation: `region` says which
  kHost = 2,        // inside pinned host memory: not restorable
  kUnresolved = 3,  // looks like an address (an 8-byte parameter) but no allocation holds it
};

// How a word holds its address. Words of large parameters (a TMA descriptor, CUtensorMap, 128
// bytes, is opaque) are also tried with their top bits masked off and shifted by 4 (16-byte
// units); only raw words are patched by a relocated replay.
enum class Encoding : uint32_t {
  kRaw = 0,
  kLow48 = 1,      // value & (2^48 - 1)
  kLow48Shl4 = 2,  // (value & (2^48 - 1)) << 4 ... of the word shifted right by 4 on store
  kLow56 = 3,      // value & (2^56 - 1)
};

// An 8-byte word of the parameter buffer (or of a small saved region) that is an address.
struct PointerWord {
  int32_t in_region = -1;  // -1: the parameter buffer; else the region the word was found in
  uint32_t offset = 0;     // byte offset of the word in the buffer or region
  uint64_t value = 0;
  WordKind kind = WordKind::kDevice;
  int32_t region = -1;     // kDevice: the region index
  Encoding encoding = Encoding::kRaw;
};

enum class MemoryKind : uint32_t { kDevice = 1, kManaged = 2 };

// A device allocation a parameter points into (cuPointerGetAttribute's range).
struct Region {
  uint64_t base = 0, size = 0;
  MemoryKind kind = MemoryKind::kDevice;
  bool saved = true;          // false: over the size bound, contents not kept
};

// Where a region's contents lie in the file.
struct DataRef {
  uint64_t offset = 0, size = 0;
  bool present = false;
};

// A launch before the snapped one on its stream. In the run, the snapped launch found in the L2
// what the kernels just before it left (their outputs, often its inputs, or its inputs that they
// read); a replay can launch them first (`--l2 prelude`), oldest first, so that the L2 holds
// the same. Its pointers index the snapshot's region table (its allocations are saved with the
// snapped kernel's); the memory it finds on replay is the state at the snap, i.e. after it ran.
struct Prelude {
  std::string kernel;      // the mangled name
  LaunchConfig launch;
  std::vector<LaunchAttribute> launch_attributes;
  std::vector<Param> params;
  std::string param_buffer;
  std::vector<PointerWord> pointers;  // in_region is always -1 (its parameter buffer)
  int32_t image = -1;      // -1: the snapped kernel's image defines it; else Snapshot::prelude_images[image]
};

struct Snapshot {
  uint32_t version = kVersion;
  Device device;
  std::string kernel;            // the mangled name, as the driver names it
  uint64_t launch_index = 0;     // 1-based: the N-th launch of a matching kernel
  std::string command;           // the snapped process's command line, for the reader
  int32_t pid = 0;
  uint32_t image_candidates = 0; // kept images that define the kernel (>1: the newest taken)
  LaunchConfig launch;
  std::vector<LaunchAttribute> launch_attributes;
  std::vector<FunctionAttribute> function_attributes;
  std::vector<Param> params;
  std::string param_buffer;      // the bytes the kernel receives
  std::vector<PointerWord> pointers;
  std::vector<Region> regions;
  uint64_t bytes_bound = 0;      // the bound region contents were saved under
  uint64_t in_run_ns = 0;        // the launch's time between events around it, in the run; 0: none
  std::vector<Prelude> preludes;  // the launches before it on its stream, oldest first
  std::string preludes_why_not;    // none: why (the first launch on its stream; an earlier runtime's snapshot)
  // Filled by the reader.
  DataRef image;
  std::vector<DataRef> before, after;  // per region
  std::vector<DataRef> prelude_images;  // module images of preludes the snapped image does not define
};

}  // namespace strata::snapshot
