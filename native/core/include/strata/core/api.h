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

// What a metric's values mean when nodes are added up. Additive values (times, samples, bytes,
// launches) sum along a path, so they can be a flame graph's widths; an attribute (grid and block
// size, registers, shared memory, occupancy) describes each event, so its sum means nothing: it is
// read as mean / min / max per node.
enum class MetricNature { kAdditive, kAttribute };

struct MetricInfo {
  std::string name;   // "cpu_time", "wall_time", ...
  std::string unit;   // "ns", "count", "bytes"
  MetricNature nature = MetricNature::kAdditive;
};

// The nature of a metric of this name (the runtime's launch-configuration metrics are attributes).
MetricNature MetricNatureOf(const std::string& name);
const char* MetricNatureName(MetricNature n);  // "additive" | "attribute"

// Whose code a frame is, for "my code" highlighting and the Python view: the user's (a source
// file outside the libraries, or a program binary), a library's (site-packages, the standard
// library, shared objects in system or package folders), the Python interpreter's own (the
// python executable or libpython: eval loop, call machinery, start-up), the GPU's (API calls,
// kernels, instructions, regions), or none (the root, thread and process frames, truncation markers).
enum class FrameOrigin : uint8_t { kNone = 0, kUser = 1, kLibrary = 2, kInterpreter = 3, kGpu = 4 };
const char* FrameOriginName(FrameOrigin o);  // "none" | "user" | "library" | "interpreter" | "gpu"

// Statistics of one metric at one view node. inclusive_* covers the subtree (for bottom-up
// and flat views: every sample whose path contains the frame, counted once per sample path),
// exclusive_* the samples that ended exactly here.
struct NodeMetric {
  double inclusive = 0, exclusive = 0;
  uint64_t count = 0;                  // exclusive sample/event count
  double min = 0, max = 0, mean = 0, std = 0;  // of exclusive values
};

// One node's values of the metric a view is built by (ViewOptions::primary_metric): what a flame
// graph draws and orders by.
struct NodeValue {
  double inclusive = 0, exclusive = 0;
  uint64_t count = 0;  // exclusive sample/event count
};

// One source location (file, function, line) a frame stands for.
struct SourceLine {
  std::string file;
  std::string function;  // "" when unknown
  uint32_t line = 0;
};

// A resolved frame: what a user sees. Kind strings: "root", "python", "native", "operator",
// "gpu_api", "kernel", "pc", "region", "thread", "process" (a run's process, in a merged run view).
struct FrameInfo {
  std::string kind;
  std::string name;     // symbolized function, or "module+0xOFF" when nothing is known
  std::string file;     // absolute source path or "" when unknown
  uint32_t line = 0;    // 0 when unknown
  std::string module;   // module path or ""
  uint64_t address = 0; // address inside the module for native frames
  bool iteration = false;  // a region frame that is one iteration of a loop (`name` then ends
                           // in " (iteration)")
  bool truncated = false;  // where a call stack was cut (depth limit, unwind failure): the
                           // frames above it are unknown; `name` says why
  FrameOrigin origin = FrameOrigin::kNone;
  // A fused GPU kernel's frame (torch.compile: "fused (N lines)"): every source line the kernel
  // computes, in the compiler's order, each once (the profile's frame source lines section).
  // Empty for every other frame. Frames with different lists are different functions.
  std::vector<SourceLine> fused_lines;
};

// Which frames a view shows. kPython folds the interpreter's own frames (its start-up, eval loop
// and call machinery, and the C library's start-up frames above them) into the frame they serve:
// their time becomes that frame's self time, their callees its callees. kAuto is kPython for a
// profile with Python frames, else kAll.
enum class FrameFilter { kAll, kPython, kAuto };

// A view is a tree in preorder: parent[i] < i, parent[0] == -1 (the root).
// Children of a node appear in descending inclusive order of the view's primary metric.
struct View {
  ViewKind kind;
  std::vector<int32_t> parent;
  std::vector<FrameInfo> frames;            // per view node (empty unless ViewOptions::expand)
  std::vector<std::vector<NodeMetric>> metrics;  // [node][metric index] (idem)

  // Compact form, always filled (what the addon turns into typed arrays):
  // node i shows (*frame_table)[frame_id[i]]; frame_table holds every frame of the profile,
  // resolved (symbolized) once and shared by all views of that profile.
  std::vector<uint32_t> frame_id;
  std::shared_ptr<const std::vector<FrameInfo>> frame_table;
  // Function identity per frame_table entry: frames of one function (kind, name, and file for
  // Python or module otherwise) share an id; what bottom-up and flat merge by.
  std::shared_ptr<const std::vector<uint32_t>> frame_function;
  size_t metric_count = 0;                  // the profile's metrics
  size_t primary_metric = 0;                // what `values` are of
  std::vector<NodeValue> values;            // [node]: always filled
  // Every metric's statistics per node, [node * metric_count + metric], with
  // ViewOptions::all_metrics; empty without (Profile::NodeMetrics computes one node's).
  std::vector<NodeMetric> metric_values;
  // Without all_metrics (top-down and bottom-up): per stored node, the view node (preorder)
  // whose exclusive statistics hold that node's values (UINT32_MAX: none, a bottom-up view's
  // node without values; top-down, a folded node's is its parent's). A view node's inclusive
  // values are those landing in its subtree: what Profile::NodeMetrics sums on demand instead of
  // keeping every metric of every node (and Profile::MetricColumn, a metric at every node).
  std::vector<uint32_t> landing;
  // How it was built (ViewOptions resolved: never kAuto).
  FrameFilter filter = FrameFilter::kAll;
  bool by_function = false;
  // By function: the lines merged into each node, heaviest first (CSR: node i's are
  // [line_offset[i], line_offset[i + 1]) of line_frame / line_value; frame_table index and the
  // primary metric's inclusive value). Empty otherwise.
  std::vector<uint32_t> line_offset, line_frame;
  std::vector<double> line_value;
  // Why the view is partial, one line ("partial bottom-up view: capped at ... nodes for memory,
  // ..."); empty when it is complete. Bounds keep a huge profile from exhausting memory.
  std::string partial;

  size_t size() const { return parent.size(); }
  const FrameInfo& frame(size_t node) const { return (*frame_table)[frame_id[node]]; }
  // Only with all_metrics (metric_values filled).
  const NodeMetric& metric(size_t node, size_t m) const { return metric_values[node * metric_count + m]; }
  bool has_all_metrics() const { return !metric_values.empty() || size() == 0 || metric_count == 0; }
};

struct ViewOptions {
  size_t primary_metric = 0;  // orders children
  bool expand = true;         // also fill View::frames and View::metrics (per-node copies);
                              // false saves memory and time on large views
  FrameFilter filter = FrameFilter::kAll;
  // Top-down: siblings of one function are one node whatever their line (the heaviest line's
  // frame is shown). Bottom-up and flat always merge by function.
  bool by_function = false;
  // Keep every metric's statistics of every node (View::metric_values). Off, a top-down or
  // bottom-up view keeps only the primary metric's values (what a viewer draws) and the other
  // metrics of a node are computed when asked for (Profile::NodeMetrics): a million-node view
  // of a profile with a dozen metrics then holds tens of megabytes, not gigabytes. A flat view
  // (one node per function) always keeps them.
  bool all_metrics = true;
};

// A part of a view to draw: the subtree of one node down to the nodes a flame graph draws wider
// than its bound, in preorder. A large view reaches the screen this way, what is visible first,
// the rest when zoomed into.
struct SliceBound {
  double min_value = 0;         // nodes whose inclusive value (View::values) is under it are left out
  size_t max_nodes = SIZE_MAX;  // at most this many nodes: past it the bound rises
  size_t max_depth = SIZE_MAX;  // levels below the root (a screen shows a few dozen rows)
  size_t whole_up_to = 0;       // a subtree of at most this many nodes is taken whole
};
// What a node of a slice lacks.
enum class LeftOut : uint8_t {
  kNone = 0,
  kNarrow = 1,  // children under the slice's min_value: needed once that is worth half a pixel
  kAny = 2,     // every child, whatever its value (past max_depth, or the node cap)
};
struct ViewSlice {
  std::vector<uint32_t> node;   // view node ids, ascending (preorder); node[0] is the subtree's root
  std::vector<int32_t> parent;  // index into `node`; -1 for node[0]
  std::vector<LeftOut> more;    // per node
  // Every child left out as kNarrow is under it (0: none is): zoomed in so far that this value
  // is wider than half a pixel, the node's part is asked for with a lower bound.
  double min_value = 0;
};
// Throws Error when `root` is not a node of the view.
ViewSlice SliceView(const View& view, size_t root, const SliceBound& bound);
// A slice with what a flame graph draws of each of its nodes.
struct ViewPart {
  ViewSlice slice;
  std::vector<uint32_t> frame_id;  // per slice node: its entry of the view's frame table
  std::vector<NodeValue> values;   // per slice node
};
// SliceView with the nodes' frames and values.
ViewPart CutViewPart(const View& view, size_t root, const SliceBound& bound);

// A top-down view whose parts come before the whole of it (Profile::BeginTopDown): a part is cut
// from the stored tree merged by call site directly, the preorder ids of the nodes cut computed
// on the way; sorting every node's children and the preorder arrays of the whole view (most of
// building it) wait for View(). Every part and the view are BuildView's and CutViewPart's, bit
// for bit. Thread-safe.
class TopDownParts {
 public:
  virtual ~TopDownParts() = default;
  virtual size_t size() const = 0;  // nodes of the view
  // CutViewPart(View(), root, bound). `root`: 0, or a node of an earlier part (any node once the
  // view is built); Error otherwise.
  virtual ViewPart Part(size_t root, const SliceBound& bound) = 0;
  // The whole view, built on the first call (later calls, and parts, then read it).
  virtual std::shared_ptr<const View> Whole() = 0;
  virtual bool has_whole() const = 0;
  // What the view shows before it is whole: the frames of its nodes (entries of the profile's
  // frame table, in no order, repeated), the frame table and function ids, how it was built.
  virtual const std::vector<uint32_t>& frames_shown() const = 0;
  virtual std::shared_ptr<const std::vector<FrameInfo>> frame_table() const = 0;
  virtual std::shared_ptr<const std::vector<uint32_t>> frame_function() const = 0;
  virtual size_t primary_metric() const = 0;
  virtual FrameFilter filter() const = 0;
  virtual bool by_function() const = 0;
};

// The sandwich of one function, from a top-down view: its callers (a tree rooted at the
// function, each level one caller further out) and its callees (everything it called, merged
// over all its calls), nodes merged by function (View::frame_function), values of the view's
// metric. Recursion counts once per path: only the outermost calls of the function are taken.
// Bounded in nodes and in frames walked (a function called at the end of long paths, a deep
// recursion): past a bound the rest is left out and `partial` says what, in one line.
struct SandwichBounds {
  size_t max_nodes = size_t(1) << 18;          // per tree
  uint64_t max_steps = uint64_t(1) << 25;      // caller frames walked over all calls
};
struct Sandwich {
  View callers, callees;     // compact top-down views (values, no statistics), the view's frame table
  size_t calls = 0;          // outermost calls of the function
  std::string partial;       // why a tree is incomplete; empty when both are whole
};
// The sandwich of `function` (an id of View::frame_function: the same in every view of a
// profile, so a frame picked in a bottom-up view names its function here too). Its root shows the
// frame of the function's heaviest call; no call: calls 0 and empty trees. Throws Error when the
// view is not top-down.
Sandwich BuildSandwich(const View& top_down, uint32_t function, const SandwichBounds& bounds = {});

struct OpenOptions {
  // Folders searched for the modules of a profile recorded elsewhere (another machine, a remote
  // GPU host): a file of the module's name whose build id matches the recorded one, or the
  // debug-file store layout <dir>/.build-id/ab/cdef….debug. /usr/lib/debug is always searched.
  // A module without DWARF also gets its lines from a separate debug file: found by build id in
  // these folders (<dir>/.build-id/ab/cdef….debug) or by its .gnu_debuglink beside the module,
  // in its .debug/ folder or under /usr/lib/debug/<module's folder>/.
  std::vector<std::string> symbol_paths;
};

class Profile {
 public:
  // Opens (mmap) and validates. Throws Error with a one-line message on a bad, truncated or
  // hostile file; never crashes.
  static std::unique_ptr<Profile> Open(const std::string& path, const OpenOptions& options = {});
  // Same validation over bytes in memory (the fuzzer and tests use this).
  static std::unique_ptr<Profile> FromBytes(std::vector<unsigned char> bytes, const OpenOptions& options = {});
  virtual ~Profile() = default;

  virtual uint32_t version() const = 0;
  virtual std::vector<std::pair<std::string, std::string>> meta() const = 0;
  virtual std::optional<std::string> meta(const std::string& key) const = 0;
  virtual const std::vector<MetricInfo>& metrics() const = 0;
  virtual size_t node_count() const = 0;     // nodes of the stored calling context tree
  // Whether any stored frame is a Python frame (what FrameFilter::kAuto decides on).
  virtual bool has_python_frames() const = 0;

  // Builds a view; native frames are symbolized (DWARF through LLVM, cached per module).
  // `primary_metric` orders children. Thread-safe for concurrent calls.
  // Throws Error when primary_metric >= metrics().size() (0 is always accepted).
  virtual View BuildView(ViewKind kind, size_t primary_metric = 0) const = 0;
  virtual View BuildView(ViewKind kind, const ViewOptions& options) const = 0;
  // The top-down view of `options`, parts first (TopDownParts). Throws as BuildView does.
  virtual std::unique_ptr<TopDownParts> BeginTopDown(const ViewOptions& options) const = 0;

  // Every metric's statistics at `node` of `view` (a view this profile built): kept in the view
  // (all_metrics), else computed from its landing (one pass over the sampled nodes); the primary
  // metric's inclusive and exclusive values are the view's own. Empty for an unknown node.
  virtual std::vector<NodeMetric> NodeMetrics(const View& view, size_t node) const = 0;
  // One metric's statistics at every node of a top-down `view` this profile built, in preorder:
  // bit for bit what a view built with all_metrics holds (the same sums in the same order), for
  // readers of a few metrics at every node (the analyzers) without every metric of every node.
  // Throws Error for a metric out of range, a view of another profile or a lean bottom-up view.
  virtual std::vector<NodeMetric> MetricColumn(const View& view, size_t metric) const = 0;

  // Sum of the exclusive sample/event counts of `metric` over all nodes (0 when out of range).
  virtual uint64_t total_count(size_t metric = 0) const = 0;
  // Sum of the exclusive values of `metric` over all nodes (the root's inclusive value).
  virtual double total(size_t metric = 0) const = 0;
};

// The profile format's numeric frame kind (strata/format/layout.h FrameKind: what the addon's
// columns and the webview protocol carry) of a FrameInfo::kind string; -1 when it names none.
int FrameKindCode(const std::string& kind);
// Every frame kind string, indexed by its numeric kind.
const std::vector<std::string>& FrameKindNames();

// Per source line, each metric's inclusive value summed over the call paths through the line,
// counting each line once per path (its outermost frame: recursion does not count twice): what
// line heat shows. `values[k]` is of metrics[k]; `totals[k]` is the root's inclusive value.
// `backward[k]` is the part of values[k] under autograd backward operators ("<Op>Backward<k>",
// the engine's evaluate_function): backward kernels the runtime placed under their forward's line.
// A fused kernel's frame (FrameInfo::fused_lines) counts on every line it fuses: its inclusive
// value is in values[k] of each of those lines (once per path, also where the line is not on
// the kernel's call path), and `fused[k]` is the part of values[k] from fused kernels computing
// the line. Totals are the root's: a kernel fusing three lines counts on each line, never twice
// on one, and not more than once in `totals`.
struct LineTotals {
  struct Line {
    std::string file;   // as recorded / symbolized
    uint32_t line = 0;
    std::vector<double> values;
    std::vector<double> backward;
    std::vector<double> fused;
  };
  std::vector<Line> lines;   // in the order the top-down view first reaches them
  std::vector<double> totals;
};
// Throws Error when a metric index is out of range.
LineTotals SumLines(const Profile& profile, const std::vector<size_t>& metrics);

ViewKind ParseViewKind(const std::string& s);  // "top-down" | "bottom-up" | "flat"; throws Error
const char* ViewKindName(ViewKind k);

// Index of the metric named `name` in profile.metrics(), or nullopt.
std::optional<size_t> FindMetric(const Profile& profile, const std::string& name);

// Adds or replaces meta entries of the profile at `path` (validated first), keeping every other
// byte of every section, and replaces the file atomically (temporary file in the same
// directory, fsync, rename). Throws Error (one line) and leaves `path` untouched on failure.
void RewriteProfileMeta(const std::string& path,
                        const std::vector<std::pair<std::string, std::string>>& entries);

// GPU code (issue 4). For every cubin blob of the profile at `path` without a SASS listing,
// runs `nvdisasm -c -gi` on it (fork/exec, no shell) and rewrites the profile atomically with the
// listings added and meta `sass` set to *status: "embedded: N listings (nvdisasm V13.0.88)", or
// "not embedded: <why>" (nvdisasm "" = not found, or it failed on every cubin) with the profile
// otherwise unchanged. Returns whether listings were embedded. Throws Error (one line) when the
// profile cannot be read, validated or replaced.
bool EmbedSassListings(const std::string& profile_path, const std::string& nvdisasm, std::string* status);
// nvdisasm to use: $STRATA_NVDISASM, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin; "" when none.
std::string FindNvdisasm();
// Whether the profile at `path` carries cubin blobs (what EmbedSassListings works on).
bool ProfileHasCubins(const std::string& profile_path);

}  // namespace strata::core
