// Region launches and decoded region traces as columns (region_calls.h). The decoding itself is
// the core's (strata/core/region_requests.h); this only marshals requests in and columns out.
#include "region_calls.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "promise_worker.h"
#include "strata/core/names_file.h"
#include "strata/core/overlap.h"
#include "strata/core/profile_regions.h"
#include "strata/core/region_requests.h"
#include "strata/core/regions.h"

namespace strata::addon {
namespace {

namespace rg = strata::core::regions;

// {source: 'buffer' | 'proton' | 'profile', path, launch?, names?, namesFile?, cyclesPerNs?, calibration?,
//  recordCost?, startCost?, stepRegion?, fitReference?, fitRegion?, fitPlainNs?, fitInstrumentedNs?,
//  fitPacedWith?}
// (the record cost: strata/core/record_cost.h)
rg::TraceRequest RequestArg(const Napi::CallbackInfo& info, const char* call) {
  Napi::Env env = info.Env();
  auto bad = [&](const std::string& what) { return Napi::TypeError::New(env, std::string(call) + ": " + what); };
  if (info.Length() < 1 || !info[0].IsObject()) throw bad("the request must be an object");
  Napi::Object o = info[0].As<Napi::Object>();
  rg::TraceRequest r;
  Napi::Value source = o.Get("source");
  const std::string s = source.IsString() ? source.As<Napi::String>().Utf8Value() : "";
  if (s == "buffer") r.source = rg::TraceSource::kBuffer;
  else if (s == "proton") r.source = rg::TraceSource::kProton;
  else if (s == "profile") r.source = rg::TraceSource::kProfileLaunch;
  else throw bad("source must be 'buffer', 'proton' or 'profile'");
  if (!o.Get("path").IsString()) throw bad("path must be a string");
  r.path = o.Get("path").As<Napi::String>().Utf8Value();
  auto text = [&](const char* key, std::string* out) {
    Napi::Value v = o.Get(key);
    if (v.IsUndefined() || v.IsNull()) return;
    if (!v.IsString()) throw bad(std::string(key) + " must be a string");
    *out = v.As<Napi::String>().Utf8Value();
  };
  text("names", &r.names);
  text("namesFile", &r.names_file);
  text("calibration", &r.cost.calibration);
  text("startCost", &r.cost.start_costs);
  text("stepRegion", &r.cost.step_regions);
  text("fitReference", &r.cost.fit_reference);
  text("fitRegion", &r.cost.fit_region);
  text("fitPacedWith", &r.cost.fit_paced_with);
  auto number = [&](const char* key, double* out) {
    Napi::Value v = o.Get(key);
    if (v.IsUndefined() || v.IsNull()) return;
    if (!v.IsNumber()) throw bad(std::string(key) + " must be a number");
    const double d = v.As<Napi::Number>().DoubleValue();
    if (!(d >= 0)) throw bad(std::string(key) + " must not be negative");
    *out = d;
  };
  number("recordCost", &r.cost.record_cost_cycles);
  number("fitPlainNs", &r.cost.fit_plain_ns);
  number("fitInstrumentedNs", &r.cost.fit_instrumented_ns);
  Napi::Value rate = o.Get("cyclesPerNs");
  if (!rate.IsUndefined() && !rate.IsNull()) {
    if (!rate.IsNumber()) throw bad("cyclesPerNs must be a number");
    const double d = rate.As<Napi::Number>().DoubleValue();
    if (d > 0) r.cycles_per_ns = d;
  }
  Napi::Value launch = o.Get("launch");
  if (!launch.IsUndefined() && !launch.IsNull()) {
    const double d = launch.IsNumber() ? launch.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0) || d != double(int64_t(d))) throw bad("launch must be a non-negative integer");
    r.launch = size_t(d);
  }
  if (r.source == rg::TraceSource::kProfileLaunch && launch.IsUndefined()) throw bad("a profile request needs its launch");
  return r;
}

// A names table as columns {id, name, file, line} (strings into `strings`; file 0 / line 0: no
// location), as decodeRegions and readRegionNames return it.
class NameColumns {
 public:
  void Add(const rg::RegionNames& names, StringTable& strings) {
    for (const auto& [id, n] : names) {
      id_.push_back(id);
      name_.push_back(strings.Intern(n.name));
      file_.push_back(strings.Intern(n.file));
      line_.push_back(n.file.empty() ? 0 : n.line);
    }
  }
  Napi::Object ToJs(Napi::Env env) const {
    return Columns(env, {
        {"id", U32Column(env, id_)},
        {"name", U32Column(env, name_)},
        {"file", U32Column(env, file_)},
        {"line", U32Column(env, line_)},
    });
  }

 private:
  std::vector<uint32_t> id_, name_, file_, line_;
};

// ---- decodeRegions(request) -> RegionTraceColumns

class DecodeWorker : public PromiseWorker {
 public:
  DecodeWorker(Napi::Env env, rg::TraceRequest request) : PromiseWorker(env, "strata.decodeRegions"), request_(std::move(request)) {}

 protected:
  void Run() override {
    t_ = rg::DecodeRequest(request_);
    groups_ = rg::GroupShares(t_.trace);
    overlap_ = strata::core::overlap::AnalyzeOverlap(t_.trace, t_.names);
    regions_.Add(t_.names, strings_);
    for (size_t i = 0; i < t_.trace.lanes.size(); ++i) {
      const rg::Lane& l = t_.trace.lanes[i];
      const rg::LaneMeta& m = l.meta;
      lane_.block.push_back(m.block_linear);
      lane_.x.push_back(m.block[0]);
      lane_.y.push_back(m.block[1]);
      lane_.z.push_back(m.block[2]);
      lane_.group.push_back(m.group);
      lane_.smid.push_back(m.smid);
      lane_.records.push_back(m.record_count);
      lane_.overflow.push_back(m.overflow_count);
      lane_.grouping.push_back(uint8_t(m.grouping > 2 ? 2 : m.grouping));
      lane_.mode.push_back(uint8_t(m.mode == 0 ? 0 : 1));
      lane_.start.push_back(l.start_ns);
      lane_.end.push_back(l.end_ns);
      lane_.kernel.push_back(i < t_.lane_kernel.size() && t_.lane_kernel[i] < t_.kernels.size()
                                 ? strings_.Intern(t_.kernels[t_.lane_kernel[i]]) : 0);
    }
    for (const rg::Interval& iv : t_.trace.intervals) {
      iv_.lane.push_back(iv.lane);
      iv_.region.push_back(iv.region);
      iv_.depth.push_back(iv.depth);
      iv_.parent.push_back(iv.parent);
      iv_.start.push_back(iv.start_ns);
      iv_.end.push_back(iv.end_ns);
      iv_.raw_start.push_back(iv.raw_start_ns);
      iv_.raw_end.push_back(iv.raw_end_ns);
      iv_.iteration.push_back(iv.iteration >= 0 ? double(iv.iteration) : -1.0);
      iv_.wait.push_back(iv.wait_ns >= 0 ? iv.wait_ns : -1.0);
      iv_.unmatched.push_back(iv.unmatched ? 1 : 0);
    }
  }

  Napi::Value Result(Napi::Env env) override {
    const rg::Trace& t = t_.trace;
    Napi::Object out = Napi::Object::New(env);
    out.Set("cyclesPerNs", Napi::Number::New(env, t.cycles_per_ns));
    out.Set("recordCostCycles", Napi::Number::New(env, t.record_cost_cycles));
    if (!t.start_cost_cycles.empty()) {
      Napi::Array costs = Napi::Array::New(env, t.start_cost_cycles.size());
      uint32_t i = 0;
      for (const auto& [region, cycles] : t.start_cost_cycles) {
        Napi::Object c = Napi::Object::New(env);
        c.Set("region", Napi::Number::New(env, region));
        c.Set("cycles", Napi::Number::New(env, cycles));
        costs.Set(i++, c);
      }
      out.Set("startCostCycles", costs);
    }
    if (!t_.record_cost.note.empty()) out.Set("recordCostNote", t_.record_cost.note);
    out.Set("strings", StringArray(env, strings_.strings()));
    if (!t_.names_file_error.empty()) out.Set("namesFileError", t_.names_file_error);
    out.Set("regions", regions_.ToJs(env));
    out.Set("lanes", Columns(env, {
        {"block", U32Column(env, lane_.block)},
        {"blockX", U32Column(env, lane_.x)},
        {"blockY", U32Column(env, lane_.y)},
        {"blockZ", U32Column(env, lane_.z)},
        {"group", U32Column(env, lane_.group)},
        {"grouping", U8Column(env, lane_.grouping)},
        {"smid", U32Column(env, lane_.smid)},
        {"mode", U8Column(env, lane_.mode)},
        {"records", U32Column(env, lane_.records)},
        {"overflow", U32Column(env, lane_.overflow)},
        {"startNs", F64Column(env, lane_.start)},
        {"endNs", F64Column(env, lane_.end)},
        {"kernel", U32Column(env, lane_.kernel)},
    }));
    out.Set("intervals", Columns(env, {
        {"lane", U32Column(env, iv_.lane)},
        {"region", U32Column(env, iv_.region)},
        {"depth", U32Column(env, iv_.depth)},
        {"parent", I32Column(env, iv_.parent)},
        {"startNs", F64Column(env, iv_.start)},
        {"endNs", F64Column(env, iv_.end)},
        {"rawStartNs", F64Column(env, iv_.raw_start)},
        {"rawEndNs", F64Column(env, iv_.raw_end)},
        {"iteration", F64Column(env, iv_.iteration)},
        {"waitNs", F64Column(env, iv_.wait)},
        {"unmatched", U8Column(env, iv_.unmatched)},
    }));
    Napi::Array issues = Napi::Array::New(env, t.issues.size());
    for (size_t i = 0; i < t.issues.size(); ++i) {
      const rg::Issue& is = t.issues[i];
      Napi::Object o = Napi::Object::New(env);
      o.Set("kind", rg::IssueName(is.kind));
      o.Set("count", Napi::Number::New(env, double(is.count)));
      o.Set("message", is.message);
      if (is.lane >= 0) o.Set("lane", Napi::Number::New(env, is.lane));
      if (is.region >= 0) o.Set("region", Napi::Number::New(env, is.region));
      issues.Set(uint32_t(i), o);
    }
    out.Set("issues", issues);
    Napi::Array groups = Napi::Array::New(env, groups_.size());
    for (size_t g = 0; g < groups_.size(); ++g) {
      Napi::Object o = Napi::Object::New(env);
      o.Set("group", Napi::Number::New(env, groups_[g].group));
      o.Set("lanes", Napi::Number::New(env, groups_[g].lanes));
      Napi::Array rs = Napi::Array::New(env, groups_[g].regions.size());
      for (size_t i = 0; i < groups_[g].regions.size(); ++i) {
        const rg::RegionShare& r = groups_[g].regions[i];
        Napi::Object ro = Napi::Object::New(env);
        ro.Set("region", Napi::Number::New(env, r.region));
        ro.Set("share", Napi::Number::New(env, r.share));
        ro.Set("outermost", Napi::Boolean::New(env, r.outermost));
        ro.Set("container", Napi::Boolean::New(env, r.container));
        ro.Set("async", Napi::Boolean::New(env, r.async));
        rs.Set(uint32_t(i), ro);
      }
      o.Set("regions", rs);
      groups.Set(uint32_t(g), o);
    }
    out.Set("groups", groups);
    out.Set("overlap", OverlapResult(env));
    return out;
  }

  // The overlap analysis (strata/core/overlap.h): the critical path's segments and the bubbles
  // as columns on the lanes' axes, the model's verdict, the regions on the path, the findings.
  Napi::Value OverlapResult(Napi::Env env) const {
    namespace ov = strata::core::overlap;
    const ov::OverlapAnalysis& a = overlap_;
    std::vector<uint32_t> plane, blane;
    std::vector<double> pstart, pend, bstart, bend;
    std::vector<uint8_t> psync, bidle;
    for (const ov::BlockPath& p : a.paths)
      for (const ov::PathSegment& s : p.segments) {
        plane.push_back(s.lane); pstart.push_back(s.start_ns); pend.push_back(s.end_ns); psync.push_back(s.sync ? 1 : 0);
      }
    for (const ov::Bubble& b : a.bubbles) {
      blane.push_back(b.lane); bstart.push_back(b.start_ns); bend.push_back(b.end_ns);
      bidle.push_back(b.activity == ov::Activity::kIdle ? 1 : 0);
    }
    Napi::Object o = Napi::Object::New(env);
    o.Set("path", Columns(env, {{"lane", U32Column(env, plane)}, {"startNs", F64Column(env, pstart)},
                                {"endNs", F64Column(env, pend)}, {"sync", U8Column(env, psync)}}));
    o.Set("bubbles", Columns(env, {{"lane", U32Column(env, blane)}, {"startNs", F64Column(env, bstart)},
                                   {"endNs", F64Column(env, bend)}, {"idle", U8Column(env, bidle)}}));
    Napi::Object m = Napi::Object::New(env);
    m.Set("kind", ov::ModelKindName(a.model.kind));
    m.Set("stages", Napi::Number::New(env, a.model.stages));
    m.Set("bottleneck", ov::BottleneckName(a.model.current.bottleneck));
    m.Set("measuredNs", Napi::Number::New(env, a.model.measured_kernel_ns));
    m.Set("predictedNs", Napi::Number::New(env, a.model.current.kernel_ns));
    o.Set("model", m);
    Napi::Array pr = Napi::Array::New(env);
    for (const ov::PathRegion& r : a.path_regions) {
      Napi::Object x = Napi::Object::New(env);
      x.Set("region", Napi::Number::New(env, r.region));
      x.Set("activity", ov::ActivityName(r.activity));
      x.Set("share", Napi::Number::New(env, r.share));
      pr.Set(pr.Length(), x);
    }
    o.Set("pathRegions", pr);
    Napi::Array fs = Napi::Array::New(env);
    for (const ov::OverlapFinding& f : a.findings) {
      Napi::Object x = Napi::Object::New(env);
      x.Set("kind", f.kind == ov::FindingKind::kArriveEarlier ? "arrive-earlier" : f.kind == ov::FindingKind::kMoreStages ? "more-stages" : "shorten-region");
      x.Set("region", Napi::Number::New(env, f.region));
      x.Set("message", f.message);
      x.Set("gainNs", Napi::Number::New(env, f.gain_ns));
      x.Set("gainShare", Napi::Number::New(env, f.gain_share));
      fs.Set(fs.Length(), x);
    }
    o.Set("findings", fs);
    o.Set("edges", Napi::Number::New(env, double(a.edges.size())));
    return o;
  }

 private:
  rg::TraceRequest request_;
  rg::RequestedTrace t_;
  std::vector<rg::GroupShare> groups_;
  strata::core::overlap::OverlapAnalysis overlap_;
  StringTable strings_;
  NameColumns regions_;
  struct {
    std::vector<uint32_t> block, x, y, z, group, smid, records, overflow, kernel;
    std::vector<uint8_t> grouping, mode;
    std::vector<double> start, end;
  } lane_;
  struct {
    std::vector<uint32_t> lane, region, depth;
    std::vector<int32_t> parent;
    std::vector<double> start, end, raw_start, raw_end, iteration, wait;
    std::vector<uint8_t> unmatched;
  } iv_;
};

Napi::Value DecodeRegions(const Napi::CallbackInfo& info) {
  return Queue(new DecodeWorker(info.Env(), RequestArg(info, "decodeRegions")));
}

// ---- readRegionNames(path) -> RegionNamesColumns: a names file on its own (a decoded trace's
// names file: its markers' lines), read by the core.

class NamesWorker : public PromiseWorker {
 public:
  NamesWorker(Napi::Env env, std::string path) : PromiseWorker(env, "strata.readRegionNames"), path_(std::move(path)) {}

 protected:
  void Run() override {
    std::string why;
    std::optional<rg::NamesFile> file = rg::ReadNamesFile(path_, &why);
    if (!file) throw strata::core::Error(path_ + ": " + why);
    names_.Add(file->names, strings_);
    cycles_per_ns_ = file->cycles_per_ns;
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    out.Set("strings", StringArray(env, strings_.strings()));
    out.Set("regions", names_.ToJs(env));
    out.Set("cyclesPerNs", Napi::Number::New(env, cycles_per_ns_));
    return out;
  }

 private:
  std::string path_;
  StringTable strings_;
  NameColumns names_;
  double cycles_per_ns_ = 0;
};

Napi::Value ReadRegionNames(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(info.Env(), "readRegionNames(path): path must be a string");
  return Queue(new NamesWorker(info.Env(), info[0].As<Napi::String>().Utf8Value()));
}

// ---- writeRegionChromeTrace(request, outPath): the Chrome/Perfetto trace, written atomically
// (a temporary file renamed over the target: never half a trace).

class ChromeWorker : public PromiseWorker {
 public:
  ChromeWorker(Napi::Env env, rg::TraceRequest request, std::string out)
      : PromiseWorker(env, "strata.writeRegionChromeTrace"), request_(std::move(request)), out_(std::move(out)) {}

 protected:
  void Run() override {
    rg::RequestedTrace t = rg::DecodeRequest(request_);
    const std::string text = rg::ToChromeTrace(t.trace, t.names);
    const std::string tmp = out_ + ".tmp";
    bool ok;
    {
      std::ofstream f(tmp, std::ios::binary);
      ok = static_cast<bool>(f << text) && static_cast<bool>(f.flush());
    }
    if (!ok || std::rename(tmp.c_str(), out_.c_str()) != 0) {
      std::remove(tmp.c_str());
      throw strata::core::Error(out_ + ": cannot write");
    }
  }
  Napi::Value Result(Napi::Env env) override { return env.Undefined(); }

 private:
  rg::TraceRequest request_;
  std::string out_;
};

Napi::Value WriteRegionChromeTrace(const Napi::CallbackInfo& info) {
  rg::TraceRequest request = RequestArg(info, "writeRegionChromeTrace");
  if (info.Length() < 2 || !info[1].IsString()) throw Napi::TypeError::New(info.Env(), "writeRegionChromeTrace: the output path must be a string");
  return Queue(new ChromeWorker(info.Env(), std::move(request), info[1].As<Napi::String>().Utf8Value()));
}

// ---- regionLaunches(profilePath), Profile.regionLaunchesOf(view, node) -> RegionLaunches

class LaunchesWorker : public PromiseWorker {
 public:
  LaunchesWorker(Napi::Env env, std::string path, std::shared_ptr<ProfileState> state = nullptr, ViewKind kind = ViewKind::kTopDown,
                 size_t node = 0, std::optional<size_t> metric = std::nullopt)
      : PromiseWorker(env, "strata.regionLaunches"), path_(std::move(path)), state_(std::move(state)), kind_(kind), node_(node),
        metric_(metric) {}

 protected:
  void Run() override {
    const rg::ProfileRegions regions = rg::ReadProfileRegions(path_);
    std::vector<size_t> picked;
    if (state_) {
      auto view = state_->GetView(kind_, metric_);
      if (node_ < view->size() && view->frame(node_).kind == "kernel") picked = rg::LaunchesOfKernel(regions, view->frame(node_).name);
    } else {
      rg::RequireRegionBuffers(regions, path_);
      for (const rg::CapturedLaunch& l : regions.launches) picked.push_back(l.index);
    }
    for (size_t i : picked) {
      const rg::CapturedLaunch& l = regions.launches[i];
      index_.push_back(uint32_t(l.index));
      kernel_.push_back(strings_.Intern(l.kernel));
      mangled_.push_back(strings_.Intern(l.mangled));
      correlation_.push_back(double(l.correlation_id));
      bytes_.push_back(double(l.bytes.size()));
    }
    total_ = regions.launches.size();
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    out.Set("strings", StringArray(env, strings_.strings()));
    out.Set("index", U32Column(env, index_));
    out.Set("kernel", U32Column(env, kernel_));
    out.Set("mangled", U32Column(env, mangled_));
    out.Set("correlationId", F64Column(env, correlation_));
    out.Set("bytes", F64Column(env, bytes_));
    out.Set("total", Napi::Number::New(env, double(total_)));
    return out;
  }

 private:
  std::string path_;
  std::shared_ptr<ProfileState> state_;
  ViewKind kind_;
  size_t node_;
  std::optional<size_t> metric_;
  StringTable strings_;
  std::vector<uint32_t> index_, kernel_, mangled_;
  std::vector<double> correlation_, bytes_;
  size_t total_ = 0;
};

Napi::Value RegionLaunches(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(info.Env(), "regionLaunches(path): path must be a string");
  return Queue(new LaunchesWorker(info.Env(), info[0].As<Napi::String>().Utf8Value()));
}

}  // namespace

void ExportRegionCalls(Napi::Env env, Napi::Object exports) {
  exports.Set("decodeRegions", Napi::Function::New<DecodeRegions>(env, "decodeRegions"));
  exports.Set("writeRegionChromeTrace", Napi::Function::New<WriteRegionChromeTrace>(env, "writeRegionChromeTrace"));
  exports.Set("regionLaunches", Napi::Function::New<RegionLaunches>(env, "regionLaunches"));
  exports.Set("readRegionNames", Napi::Function::New<ReadRegionNames>(env, "readRegionNames"));
}

Napi::Value RegionLaunchesOfNode(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node,
                                 std::optional<size_t> metric) {
  std::string path = state->path;
  return Queue(new LaunchesWorker(env, std::move(path), std::move(state), kind, node, metric));
}

}  // namespace strata::addon
