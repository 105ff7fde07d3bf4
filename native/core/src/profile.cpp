// The profile implementation behind strata::core::Profile: opens a file (mmap) or bytes,
// validates through format::ProfileReader, resolves frames (symbolization, GPU code, region
// frames; once per Profile) and builds views.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "gpu_code/gpu_code.h"
#include "regions/region_frames.h"
#include "stats.h"
#include "strata/core/regions.h"
#include "strata/core/api.h"
#include "strata/format/reader.h"
#include "symbolize/dispatcher_operator.h"
#include "symbolize/module_locator.h"
#include "symbolize/symbolizer.h"
#include "views/frame_origin.h"
#include "views/top_down_parts.h"
#include "views/view_builder.h"

namespace strata::core {

namespace fmt = strata::format;
using detail::Stats;

namespace {

// Owns the bytes: an mmap-ed file or a vector.
class Storage {
 public:
  virtual ~Storage() = default;
  virtual const unsigned char* data() const = 0;
  virtual size_t size() const = 0;
};

class MappedFile : public Storage {
 public:
  MappedFile(void* p, size_t n) : p_(p), n_(n) {}
  ~MappedFile() override { if (p_) ::munmap(p_, n_); }
  const unsigned char* data() const override { return static_cast<const unsigned char*>(p_); }
  size_t size() const override { return n_; }
 private:
  void* p_;
  size_t n_;
};

class Bytes : public Storage {
 public:
  explicit Bytes(std::vector<unsigned char> b) : b_(std::move(b)) {}
  const unsigned char* data() const override { return b_.data(); }
  size_t size() const override { return b_.size(); }
 private:
  std::vector<unsigned char> b_;
};

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

class ProfileImpl final : public Profile {
 public:
  ProfileImpl(std::unique_ptr<Storage> storage, OpenOptions options)
      : storage_(std::move(storage)), options_(std::move(options)) {
    try {
      r_ = fmt::ProfileReader::Parse(storage_->data(), storage_->size());
    } catch (const fmt::ReadError& e) {
      throw Error(e.what());
    }
    for (const auto& md : r_.metrics()) {
      std::string name(r_.string(md.name));
      const MetricNature nature = MetricNatureOf(name);
      metrics_.push_back(MetricInfo{std::move(name), std::string(r_.string(md.unit)), nature});
    }
    for (const auto& f : r_.frames())
      if (f.kind == uint32_t(fmt::FrameKind::kPython)) { has_python_ = true; break; }
    // Totals and the sampled nodes, each with its first record (the reader checked that the
    // records are sorted by node, then metric). Dense statistics are made when a view needs them.
    const size_t m = metrics_.size();
    totals_.assign(m, 0.0);
    counts_.assign(m, 0);
    const auto recs = r_.node_metrics();
    for (size_t i = 0; i < recs.size; ++i) {
      const auto& rec = recs[i];
      totals_[rec.metric] += rec.sum;
      counts_[rec.metric] += rec.count;
      if (sampled_.empty() || sampled_.back() != rec.node) {
        sampled_.push_back(rec.node);
        first_record_.push_back(uint32_t(i));
      }
    }
    first_record_.push_back(uint32_t(recs.size));
    metric_stats_.resize(m);
  }

  uint32_t version() const override { return r_.version(); }

  std::vector<std::pair<std::string, std::string>> meta() const override {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : r_.meta()) {
      std::string key(r_.string(e.key)), value(r_.string(e.value));
      bool replaced = false;  // a repeated key: the last entry wins
      for (auto& kv : out) if (kv.first == key) { kv.second = value; replaced = true; }
      if (!replaced) out.emplace_back(std::move(key), std::move(value));
    }
    return out;
  }

  std::optional<std::string> meta(const std::string& key) const override {
    std::optional<std::string> found;
    for (const auto& e : r_.meta())
      if (r_.string(e.key) == key) found = std::string(r_.string(e.value));
    return found;
  }

  const std::vector<MetricInfo>& metrics() const override { return metrics_; }
  size_t node_count() const override { return r_.nodes().size; }
  bool has_python_frames() const override { return has_python_; }
  uint64_t total_count(size_t metric) const override { return metric < counts_.size() ? counts_[metric] : 0; }
  double total(size_t metric) const override { return metric < totals_.size() ? totals_[metric] : 0.0; }

  View BuildView(ViewKind kind, size_t primary) const override {
    ViewOptions options;
    options.primary_metric = primary;
    return BuildView(kind, options);
  }

  View BuildView(ViewKind kind, const ViewOptions& options) const override {
    Prepared in = Prepare(kind, options);
    detail::ViewOutput out;
    switch (kind) {
      case ViewKind::kTopDown: out = detail::BuildTopDown(in.in); break;
      case ViewKind::kBottomUp: out = detail::BuildBottomUp(in.in); break;
      case ViewKind::kFlat: out = detail::BuildFlat(in.in); break;
    }
    return Finish(in, std::move(out));
  }

  std::unique_ptr<TopDownParts> BeginTopDown(const ViewOptions& options) const override;
  std::shared_ptr<const std::vector<FrameInfo>> FrameTable() const { return frames_; }
  std::shared_ptr<const std::vector<uint32_t>> FrameFunction() const { return frame_func_; }

  // What a view is built from: the algorithms' input and what keeps it alive, and the options
  // resolved.
  struct Prepared {
    ViewKind kind = ViewKind::kTopDown;
    ViewOptions options;
    FrameFilter filter = FrameFilter::kAll;
    bool all_metrics = true;
    std::shared_ptr<const std::vector<Stats>> stats;
    detail::ViewInput in;
  };

  Prepared Prepare(ViewKind kind, const ViewOptions& options) const {
    const size_t primary = options.primary_metric;
    if (primary != 0 && primary >= metrics_.size())
      throw Error("metric index " + std::to_string(primary) + " out of range (the profile has " +
                  std::to_string(metrics_.size()) + " metrics)");
    std::call_once(resolved_once_, [this] { ResolveFrames(); });
    Prepared p;
    p.kind = kind;
    p.options = options;
    // Every metric's statistics, or (a lean view) the primary metric's alone: a million-node
    // profile of a dozen metrics holds its dense statistics in hundreds of megabytes.
    p.all_metrics = options.all_metrics || kind == ViewKind::kFlat || options.expand;
    const size_t m = metrics_.size();
    detail::ViewInput& in = p.in;
    in.node_count = r_.nodes().size;
    in.nodes = r_.nodes().data;
    if (p.all_metrics || m == 0) {
      p.stats = AllStats();
      in.metric_count = m;
      in.primary = primary;
    } else {
      p.stats = MetricStats(primary);
      in.metric_count = 1;
      in.primary = 0;
    }
    in.excl = p.stats->data();
    in.sampled = sampled_.data();
    in.sampled_count = sampled_.size();
    in.node_func = node_func_.data();
    // By function: top-down merges siblings by function id instead of call site.
    in.node_site = options.by_function ? node_func_.data() : node_site_.data();
    if (options.by_function && kind == ViewKind::kTopDown) in.line_site = node_site_.data();
    in.func_count = func_count_;
    p.filter = options.filter;
    if (p.filter == FrameFilter::kAuto) p.filter = has_python_ ? FrameFilter::kPython : FrameFilter::kAll;
    if (p.filter == FrameFilter::kPython && kind != ViewKind::kFlat) in.fold = python_fold_.data();
    return p;
  }

  // The algorithms' output (sorted in preorder) as a View.
  View Finish(const Prepared& prepared, detail::ViewOutput out) const {
    const ViewKind kind = prepared.kind;
    const ViewOptions& options = prepared.options;
    const detail::ViewInput& in = prepared.in;
    const bool all_metrics = prepared.all_metrics;
    const size_t m = metrics_.size(), primary = options.primary_metric;
    View view;
    view.kind = kind;
    view.filter = prepared.filter;
    view.by_function = options.by_function && kind == ViewKind::kTopDown;
    const size_t n = out.order.size(), mi = in.metric_count, pi = in.primary;
    view.parent = std::move(out.sorted_parent);
    view.frame_table = frames_;
    view.frame_function = frame_func_;
    view.metric_count = m;
    view.primary_metric = primary;
    view.partial = std::move(out.partial);
    view.frame_id.resize(n);
    view.values.resize(n);
    if (all_metrics) view.metric_values.resize(n * m);
    const Stats empty;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t old = out.order[i];
      view.frame_id[i] = out.frame[old];
      const Stats* ex = out.ExclOf(old, mi);
      if (pi < mi) {
        const Stats& st = ex ? ex[pi] : empty;
        view.values[i] = NodeValue{out.incl[size_t(old) * mi + pi], st.sum, st.count};
      }
      if (!all_metrics) continue;
      for (size_t k = 0; k < m; ++k)
        view.metric_values[i * m + k] = (ex ? ex[k] : empty).ToNodeMetric(out.incl[size_t(old) * m + k]);
    }
    if (!all_metrics) {
      // Creation index -> preorder, for the landing of each stored node.
      std::vector<uint32_t> pre(n);
      for (size_t i = 0; i < n; ++i) pre[out.order[i]] = uint32_t(i);
      view.landing.resize(out.landing.size());
      for (size_t s = 0; s < out.landing.size(); ++s)
        view.landing[s] = out.landing[s] == detail::ViewOutput::kNoSlot ? UINT32_MAX : pre[out.landing[s]];
    }
    if (!out.lines.empty()) {
      // Lines per preorder node, heaviest first.
      std::vector<uint32_t> pre(n);
      for (size_t i = 0; i < n; ++i) pre[out.order[i]] = uint32_t(i);
      std::sort(out.lines.begin(), out.lines.end(), [&](const auto& a, const auto& b) {
        return pre[a.node] != pre[b.node] ? pre[a.node] < pre[b.node] : a.value > b.value;
      });
      view.line_offset.assign(n + 1, 0);
      for (const auto& l : out.lines) ++view.line_offset[pre[l.node] + 1];
      for (size_t i = 0; i < n; ++i) view.line_offset[i + 1] += view.line_offset[i];
      view.line_frame.reserve(out.lines.size());
      view.line_value.reserve(out.lines.size());
      for (const auto& l : out.lines) { view.line_frame.push_back(l.frame); view.line_value.push_back(l.value); }
    }
    if (options.expand) {
      const auto& table = *frames_;
      view.frames.reserve(n);
      for (size_t i = 0; i < n; ++i) view.frames.push_back(table[view.frame_id[i]]);
      view.metrics.resize(n);
      for (size_t i = 0; i < n; ++i)
        view.metrics[i].assign(view.metric_values.begin() + long(i * m),
                               view.metric_values.begin() + long((i + 1) * m));
    }
    return view;
  }

  std::vector<NodeMetric> NodeMetrics(const View& view, size_t node) const override {
    const size_t m = metrics_.size();
    std::vector<NodeMetric> out;
    if (node >= view.size()) return out;
    if (!view.metric_values.empty()) {
      out.assign(view.metric_values.begin() + long(node * m), view.metric_values.begin() + long((node + 1) * m));
      return out;
    }
    if (view.landing.size() != r_.nodes().size)
      throw Error("node metrics: the view was not built by this profile");
    // The node's subtree is [node, end) in preorder: a later node is inside it while its parent is.
    size_t end = node + 1;
    while (end < view.size() && size_t(view.parent[end]) >= node) ++end;
    // The records of the sampled nodes landing in the subtree (read from the file, not kept).
    std::vector<Stats> excl(m);
    std::vector<double> incl(m, 0.0);
    const auto recs = r_.node_metrics();
    for (size_t s = 0; s < sampled_.size(); ++s) {
      const uint32_t at = view.landing[sampled_[s]];
      if (at < node || at >= end) continue;
      for (uint32_t j = first_record_[s]; j < first_record_[s + 1]; ++j) {
        const auto& rec = recs[j];
        incl[rec.metric] += rec.sum;
        if (at == node) excl[rec.metric].Merge(Stats{rec.count, rec.sum, rec.min, rec.max, rec.m2, true});
      }
    }
    out.resize(m);
    for (size_t k = 0; k < m; ++k) out[k] = excl[k].ToNodeMetric(incl[k]);
    // The metric drawn: exactly the view's numbers (sums above may differ in the last bits).
    if (view.primary_metric < m && node < view.values.size()) {
      out[view.primary_metric].inclusive = view.values[node].inclusive;
      out[view.primary_metric].exclusive = view.values[node].exclusive;
    }
    return out;
  }

  std::vector<NodeMetric> MetricColumn(const View& view, size_t metric) const override {
    const size_t m = metrics_.size(), vn = view.size();
    if (metric >= m)
      throw Error("metric index " + std::to_string(metric) + " out of range (the profile has " + std::to_string(m) +
                  " metrics)");
    std::vector<NodeMetric> out;
    if (!view.metric_values.empty()) {
      out.reserve(vn);
      for (size_t i = 0; i < vn; ++i) out.push_back(view.metric(i, metric));
      return out;
    }
    if (vn == 0) return out;
    const size_t n = r_.nodes().size;
    if (view.kind != ViewKind::kTopDown) throw Error("metric column: a lean " + std::string(ViewKindName(view.kind)) + " view");
    if (view.landing.size() != n) throw Error("metric column: the view was not built by this profile");
    std::call_once(resolved_once_, [this] { ResolveFrames(); });
    // As BuildTopDown does per metric: the stored tree's inclusive sums (children into parents,
    // last node first), then per view node the stored nodes' sums and statistics added in stored
    // order (a folded node's statistics join its parent's, its sum is inside the parent's already).
    const auto nodes = r_.nodes();
    const auto recs = r_.node_metrics();
    // Per sampled node, its record of the metric (records are sorted by node, then metric),
    // found once: the file's records are read once per column.
    constexpr uint32_t kNoRecord = ~0u;
    std::vector<uint32_t> record(sampled_.size(), kNoRecord);
    std::vector<double> stored_incl(n, 0.0);
    for (size_t s = 0; s < sampled_.size(); ++s)
      for (uint32_t j = first_record_[s]; j < first_record_[s + 1]; ++j)
        if (recs[j].metric == metric) {
          record[s] = j;
          stored_incl[sampled_[s]] = recs[j].sum;
          break;
        }
    auto record_of = [&](size_t s) -> const fmt::NodeMetricRecord* { return record[s] == kNoRecord ? nullptr : &recs[record[s]]; };
    for (size_t i = n; i-- > 1;) stored_incl[nodes[i].parent] += stored_incl[i];
    const uint8_t* fold = view.filter == FrameFilter::kPython ? python_fold_.data() : nullptr;
    std::vector<double> incl(vn, 0.0);
    std::vector<Stats> view_excl(vn);
    for (size_t i = 0, s = 0; i < n; ++i) {
      const uint32_t v = view.landing[i];
      if (v >= vn) throw Error("metric column: the view was not built by this profile");
      if (s < sampled_.size() && sampled_[s] == i) {
        if (const auto* rec = record_of(s)) view_excl[v].Merge(Stats{rec->count, rec->sum, rec->min, rec->max, rec->m2, true});
        ++s;
      }
      if (!(fold && fold[i])) incl[v] += stored_incl[i];
    }
    out.resize(vn);
    for (size_t v = 0; v < vn; ++v) out[v] = view_excl[v].ToNodeMetric(incl[v]);
    return out;
  }

 private:
  // Every metric's exclusive statistics, dense: [node * metric_count + metric]. Held only while
  // views being built use it (a viewer's profile would otherwise keep hundreds of megabytes after
  // the analyzers' one view); views built meanwhile share it.
  std::shared_ptr<const std::vector<Stats>> AllStats() const {
    std::lock_guard<std::mutex> lock(metric_stats_mu_);
    if (auto held = all_stats_.lock()) return held;
    const size_t m = metrics_.size();
    auto made = std::make_shared<std::vector<Stats>>(r_.nodes().size * m);
    for (const auto& rec : r_.node_metrics())
      (*made)[size_t(rec.node) * m + rec.metric] = Stats{rec.count, rec.sum, rec.min, rec.max, rec.m2, true};
    all_stats_ = made;
    return made;
  }

  // One metric's exclusive statistics per node (a lean view's input), made when first asked for;
  // the two used last are kept.
  std::shared_ptr<const std::vector<Stats>> MetricStats(size_t metric) const {
    std::lock_guard<std::mutex> lock(metric_stats_mu_);
    auto& slot = metric_stats_[metric];
    if (!slot) {
      auto made = std::make_shared<std::vector<Stats>>(r_.nodes().size);
      for (const auto& rec : r_.node_metrics())
        if (rec.metric == metric) (*made)[rec.node] = Stats{rec.count, rec.sum, rec.min, rec.max, rec.m2, true};
      slot = std::move(made);
    }
    metric_stats_used_.erase(std::remove(metric_stats_used_.begin(), metric_stats_used_.end(), metric), metric_stats_used_.end());
    metric_stats_used_.push_back(metric);
    while (metric_stats_used_.size() > 2) {
      metric_stats_[metric_stats_used_.front()].reset();
      metric_stats_used_.erase(metric_stats_used_.begin());
    }
    return slot;
  }

  // Resolves every stored frame once: FrameInfo (symbolized) and a function id per node.
  void ResolveFrames() const {
    const auto frames = r_.frames();
    const auto modules = r_.modules();
    std::unique_ptr<detail::Symbolizer> symbolizer;
    // GPU instructions: decoded from the cubins / SASS listings the profile carries.
    std::unique_ptr<gpu::GpuCode> gpu_code;
    // Cached per (module, address); each module is located once (see module_locator.h).
    std::vector<std::unordered_map<uint64_t, detail::SymbolInfo>> cache(modules.size);
    std::vector<int8_t> module_ok(modules.size, -1);
    std::vector<std::string> module_file(modules.size);
    auto table = std::make_shared<std::vector<FrameInfo>>(frames.size);
    std::vector<uint32_t> frame_func(frames.size), frame_site(frames.size);
    std::vector<detail::FoldClass> frame_fold(frames.size);
    std::unordered_map<std::string, uint32_t> func_ids, site_ids;
    std::string key;
    // Where no operator was recorded, torch's dispatcher entry points stand for the operators:
    // entries the runtime flagged as taken on a path without recorded operators (callbacks off,
    // or before the first autograd graph), and every entry of a profile with no operator frame
    // at all (written before the flag, or by a plugin-less run). Beside recorded operators the
    // entries sit under them and stay native frames. Another tool's frames (strata import) keep
    // their names.
    bool has_operators = false;
    for (size_t i = 0; i < frames.size && !has_operators; ++i)
      has_operators = frames[i].kind == uint32_t(fmt::FrameKind::kOperator);
    for (size_t i = 0; i < frames.size; ++i) {
      const fmt::FrameRecord& f = frames[i];
      FrameInfo& info = (*table)[i];
      uint32_t kind = f.kind;
      info.kind = fmt::FrameKindName(f.kind);
      info.name = std::string(r_.string(f.name));
      info.file = std::string(r_.string(f.file));
      info.line = f.line;
      info.address = f.address;
      if (f.module != fmt::kNone) info.module = std::string(r_.string(modules[f.module].path));
      if (f.flags & fmt::kFrameFlagTruncation) {
        info.truncated = true;  // synthetic: nothing to symbolize, the name says why
      } else if (f.kind == uint32_t(fmt::FrameKind::kNative)) {
        if (!symbolizer) symbolizer = detail::MakeDefaultSymbolizer(options_.symbol_paths);
        detail::SymbolInfo sym;
        if (f.module != fmt::kNone) {
          int8_t& ok = module_ok[f.module];
          if (ok < 0) {
            module_file[f.module] = detail::LocateModule(
                info.module, std::string(r_.string(modules[f.module].build_id)), options_.symbol_paths, *symbolizer);
            ok = module_file[f.module].empty() ? 0 : 1;
          }
          if (ok) {
            auto& per_module = cache[f.module];
            auto it = per_module.find(f.address);
            if (it == per_module.end())
              it = per_module.emplace(f.address, symbolizer->Symbolize(module_file[f.module], f.address)).first;
            sym = it->second;
          }
        }
        // A native frame with neither module nor address comes from another tool's file
        // (strata import): its name stays as that tool wrote it.
        const bool imported = f.module == fmt::kNone && f.address == 0 && !info.name.empty();
        if (!sym.function.empty()) info.name = sym.function;
        else if (imported) {}
        else if (!info.name.empty()) info.name = symbolizer->Demangle(info.name);
        else if (!info.module.empty()) info.name = BaseName(info.module) + "+" + Hex(f.address);
        else info.name = Hex(f.address);
        if (!sym.file.empty()) { info.file = sym.file; info.line = sym.line; }
        if ((!has_operators || (f.flags & fmt::kFrameFlagOperatorNotRecorded)) && !imported) {
          if (std::optional<std::string> op = detail::DispatcherOperatorName(info.name)) {
            kind = uint32_t(fmt::FrameKind::kOperator);
            info.kind = fmt::FrameKindName(kind);
            info.name = std::move(*op);
          }
        }
      } else if (f.kind == uint32_t(fmt::FrameKind::kPc)) {
        // name = the mangled function, address = the PC offset inside it (docs/profile-format.md).
        if (!gpu_code && r_.blob_count() > 0) gpu_code = std::make_unique<gpu::GpuCode>(r_);
        gpu::PcInfo pc;
        if (gpu_code && f.module != fmt::kNone) pc = gpu_code->Lookup(f.module, info.name, f.address);
        info.name = gpu::GpuCode::Label(f.address, pc);
        if (pc.line > 0) { info.file = pc.file; info.line = pc.line; }
      } else if (f.kind == uint32_t(fmt::FrameKind::kRegion)) {
        const regions::detail::StoredRegionFrame rf = regions::detail::ReadRegionFrame(r_, f);
        info.iteration = rf.iteration;
        info.name = regions::RegionFrameLabel(rf.name, rf.iteration);
      }
      for (const fmt::SourceLineRecord& l : r_.frame_source_lines(uint32_t(i), fmt::SourceLinesRole::kFused))
        info.fused_lines.push_back(SourceLine{std::string(r_.string(l.file)), std::string(r_.string(l.function)), l.line});
      info.origin = detail::ClassifyFrame(kind, info.module, info.file, info.truncated);
      frame_fold[i] = detail::FoldClassOf(kind, info.module, info.truncated);
      // Function identity for bottom-up / flat merging.
      key.clear();
      key += info.kind;
      key += '\0';
      key += info.name;
      key += '\0';
      if (f.kind == uint32_t(fmt::FrameKind::kPython)) key += info.file;
      else key += info.module;
      for (const SourceLine& l : info.fused_lines) {  // another fused group is another function
        key += '\0';
        key += l.file;
        key += ':';
        key += std::to_string(l.line);
      }
      frame_func[i] = func_ids.emplace(key, uint32_t(func_ids.size())).first->second;
      // Call-site identity for top-down merging: the function plus file:line; a frame with no
      // line (no debug info) or an instruction-level frame keeps its address.
      key += '\0';
      key += info.file;
      key += ':';
      key += std::to_string(info.line);
      if (info.line == 0 || f.kind == uint32_t(fmt::FrameKind::kPc)) key += '@' + std::to_string(f.address);
      frame_site[i] = site_ids.emplace(key, uint32_t(site_ids.size())).first->second;
    }
    func_count_ = func_ids.size();
    frame_func_ = std::make_shared<const std::vector<uint32_t>>(frame_func);
    frames_ = std::move(table);
    const auto nodes = r_.nodes();
    node_func_.resize(nodes.size);
    node_site_.resize(nodes.size);
    for (size_t i = 0; i < nodes.size; ++i) {
      node_func_[i] = frame_func[nodes[i].frame];
      node_site_[i] = frame_site[nodes[i].frame];
    }
    python_fold_ = detail::PythonViewFold(nodes.data, nodes.size, frame_fold);
  }

  std::unique_ptr<Storage> storage_;
  OpenOptions options_;
  fmt::ProfileReader r_;
  std::vector<MetricInfo> metrics_;
  std::vector<uint32_t> sampled_;
  std::vector<uint32_t> first_record_;  // per sampled node, its first node-metric record; then the count
  mutable std::mutex metric_stats_mu_;
  mutable std::weak_ptr<const std::vector<Stats>> all_stats_;  // AllStats()
  mutable std::vector<std::shared_ptr<const std::vector<Stats>>> metric_stats_;  // MetricStats(), by metric
  mutable std::vector<size_t> metric_stats_used_;
  std::vector<double> totals_;
  std::vector<uint64_t> counts_;
  bool has_python_ = false;

  mutable std::once_flag resolved_once_;
  mutable std::shared_ptr<const std::vector<FrameInfo>> frames_;
  mutable std::vector<uint32_t> node_func_;
  mutable std::vector<uint32_t> node_site_;
  mutable std::vector<uint8_t> python_fold_;  // per stored node (FrameFilter::kPython)
  mutable size_t func_count_ = 0;
  mutable std::shared_ptr<const std::vector<uint32_t>> frame_func_;
};

// The parts first, the view when asked for (TopDownParts).
class TopDownPartsImpl final : public TopDownParts {
 public:
  TopDownPartsImpl(const ProfileImpl& profile, ProfileImpl::Prepared prepared)
      : profile_(profile), prepared_(std::move(prepared)) {
    detail::Children kids;
    detail::ViewOutput tree = detail::BuildTopDownTree(prepared_.in, &kids);
    frames_shown_ = tree.frame;
    size_ = tree.parent.size();
    parts_.emplace(std::move(tree), std::move(kids), prepared_.in.metric_count, prepared_.in.primary);
    frame_table_ = profile_.FrameTable();
    frame_function_ = profile_.FrameFunction();
  }

  size_t size() const override { return size_; }

  ViewPart Part(size_t root, const SliceBound& bound) override {
    if (auto whole = Built()) return CutViewPart(*whole, root, bound);
    std::unique_lock<std::mutex> lock(parts_mu_);
    if (!parts_) {  // made whole meanwhile
      lock.unlock();
      return CutViewPart(*Built(), root, bound);
    }
    return parts_->Part(root, bound);
  }

  std::shared_ptr<const View> Whole() override {
    std::lock_guard<std::mutex> building(build_mu_);
    if (auto whole = Built()) return whole;
    // Sorted from a copy, so that parts asked for meanwhile are cut without waiting.
    detail::Children kids;
    detail::ViewOutput tree;
    size_t m, p;
    {
      std::lock_guard<std::mutex> lock(parts_mu_);
      tree = parts_->CopyTree(&kids);
      m = parts_->metric_count();
      p = parts_->primary();
    }
    detail::SortPreorder(tree, m, p, kids.offset.empty() ? nullptr : &kids);
    kids = detail::Children{};
    auto made = std::make_shared<const View>(profile_.Finish(prepared_, std::move(tree)));
    {
      std::lock_guard<std::mutex> lock(whole_mu_);
      whole_ = made;
    }
    std::lock_guard<std::mutex> lock(parts_mu_);
    parts_.reset();
    prepared_.stats.reset();
    return made;
  }

  bool has_whole() const override { return Built() != nullptr; }
  const std::vector<uint32_t>& frames_shown() const override { return frames_shown_; }
  std::shared_ptr<const std::vector<FrameInfo>> frame_table() const override { return frame_table_; }
  std::shared_ptr<const std::vector<uint32_t>> frame_function() const override { return frame_function_; }
  size_t primary_metric() const override { return prepared_.options.primary_metric; }
  FrameFilter filter() const override { return prepared_.filter; }
  bool by_function() const override { return prepared_.options.by_function; }

 private:
  const ProfileImpl& profile_;
  ProfileImpl::Prepared prepared_;
  size_t size_ = 0;
  std::vector<uint32_t> frames_shown_;
  std::shared_ptr<const std::vector<FrameInfo>> frame_table_;
  std::shared_ptr<const std::vector<uint32_t>> frame_function_;
  std::shared_ptr<const View> Built() const {
    std::lock_guard<std::mutex> lock(whole_mu_);
    return whole_;
  }

  std::mutex build_mu_;             // one build of the whole view
  mutable std::mutex parts_mu_;     // parts_ (cutting a part sorts children in place)
  mutable std::mutex whole_mu_;     // whole_
  std::optional<detail::TopDownTreeParts> parts_;
  std::shared_ptr<const View> whole_;
};

std::unique_ptr<TopDownParts> ProfileImpl::BeginTopDown(const ViewOptions& options) const {
  return std::make_unique<TopDownPartsImpl>(*this, Prepare(ViewKind::kTopDown, options));
}

}  // namespace

std::unique_ptr<Profile> Profile::Open(const std::string& path, const OpenOptions& options) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw Error(std::string("cannot open: ") + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) { ::close(fd); throw Error("cannot open: Is a directory"); }
  if (!S_ISREG(st.st_mode)) { ::close(fd); throw Error("not a Strata profile: not a regular file"); }
  size_t size = size_t(st.st_size);
  if (size == 0) { ::close(fd); throw Error("not a Strata profile: empty file"); }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  ::close(fd);
  if (p == MAP_FAILED) throw Error(std::string("cannot map: ") + std::strerror(e));
  return std::make_unique<ProfileImpl>(std::make_unique<MappedFile>(p, size), options);
}

std::unique_ptr<Profile> Profile::FromBytes(std::vector<unsigned char> bytes, const OpenOptions& options) {
  return std::make_unique<ProfileImpl>(std::make_unique<Bytes>(std::move(bytes)), options);
}

ViewKind ParseViewKind(const std::string& s) {
  if (s == "top-down") return ViewKind::kTopDown;
  if (s == "bottom-up") return ViewKind::kBottomUp;
  if (s == "flat") return ViewKind::kFlat;
  throw Error("unknown view '" + s + "' (expected top-down, bottom-up or flat)");
}

const char* ViewKindName(ViewKind k) {
  switch (k) {
    case ViewKind::kTopDown: return "top-down";
    case ViewKind::kBottomUp: return "bottom-up";
    case ViewKind::kFlat: return "flat";
  }
  return "?";
}

std::optional<size_t> FindMetric(const Profile& profile, const std::string& name) {
  const auto& ms = profile.metrics();
  for (size_t i = 0; i < ms.size(); ++i) if (ms[i].name == name) return i;
  return std::nullopt;
}

}  // namespace strata::core
