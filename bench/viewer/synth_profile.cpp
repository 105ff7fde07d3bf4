// Writes a synthetic profile with the project's own writer (native/format), for the viewer
// benchmark and the hostile-name tests; optionally the same tree as a speedscope file (its
// "evented" format: each node opens at its start and closes after its inclusive time), so both
// viewers are given the same data.
//
//   strata_synth_profile --shape wide|deep|hostile --nodes N -o OUT.strata [--speedscope OUT.json] [--metrics K] [--variant V] [--meta KEY=VALUE]...
//
// wide: 5,000 functions calling a few fixed callees, paths up to 40 deep (a real program's
//       shape); deep: chains that go on with probability 0.99 (depths in the thousands, the
//       shape that made a bottom-up view blow up); hostile: a small tree whose kernel, function
//       and file names are HTML, quotes, a 5,000-character template, non-ASCII and newlines.
// Every node gets a cpu_time sample (1-3 us) so that no node is empty in either viewer; with
// --metrics K, K metrics in all (the others additive, as many as a GPU profile has: what a view
// keeping every metric of every node pays for). --variant V (1, 2, ...): the same tree as without
// it, as a second run of the program would give: one node in ten takes 1-4 times its time, and
// one function in fifty sits three lines lower (a moved line: a diff matches it fuzzily); the
// pair (no variant, a variant) is what the viewer's diff mode is measured on. --meta adds a meta
// entry (what the runtime writes beside the tree: the viewer's notes on a profile are tested so).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "strata/format/writer.h"

namespace fmt = strata::format;

namespace {

struct Options {
  std::string shape = "wide";
  size_t nodes = 10000;
  size_t metrics = 1;
  uint64_t variant = 0;
  std::string out, speedscope;
  std::vector<std::pair<std::string, std::string>> meta;
};

int Usage(const char* why) {
  std::fprintf(stderr, "strata_synth_profile: %s\nusage: strata_synth_profile --shape wide|deep|hostile --nodes N -o OUT.strata [--speedscope OUT.json] [--metrics K] [--variant V] [--meta KEY=VALUE]...\n", why);
  return 2;
}

struct Rng {
  uint64_t s = 1;
  uint64_t operator()() { s = s * 6364136223846793005ull + 1442695040888963407ull; return s >> 33; }
};

// The names the hostile shape uses (what escaping must survive).
std::vector<std::string> HostileNames() {
  std::string tmpl = "void gemm_kernel<";
  while (tmpl.size() < 5000) tmpl += "cutlass::gemm::GemmShape<128, 256, 64>, \"quoted\" & <b>bold</b>, ";
  tmpl += ">(float const*, float*)";
  return {
      "<img src=x onerror=\"document.title='pwned'\">",
      "'; alert(1); '\" <script>alert(2)</script>",
      tmpl,
      "naïve_函数_ñandú_🔥",
      "line one\nline two\r\n\tthird",
      "${workspaceFolder} $(touch /tmp/strata-pwned) `id` [x](command:workbench.action.quit)",
  };
}

void WriteSpeedscope(const std::string& path, const fmt::ProfileWriter&, const std::vector<int32_t>& parent,
                     const std::vector<uint32_t>& frame, const std::vector<double>& self,
                     const std::vector<std::string>& frame_names) {
  const size_t n = parent.size();
  std::vector<double> incl(self);
  for (size_t i = n; i-- > 1;) incl[size_t(parent[i])] += incl[i];
  // Children in creation order (CSR).
  std::vector<uint32_t> off(n + 1, 0), kids(n ? n - 1 : 0);
  for (size_t i = 1; i < n; ++i) ++off[size_t(parent[i]) + 1];
  for (size_t i = 0; i < n; ++i) off[i + 1] += off[i];
  std::vector<uint32_t> fill(off.begin(), off.end() - 1);
  for (size_t i = 1; i < n; ++i) kids[fill[size_t(parent[i])]++] = uint32_t(i);
  std::ofstream o(path, std::ios::binary);
  o << "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[";
  for (size_t f = 0; f < frame_names.size(); ++f) {
    o << (f ? "," : "") << "{\"name\":\"";
    for (char c : frame_names[f]) {
      if (c == '"' || c == '\\') o << '\\' << c;
      else if (static_cast<unsigned char>(c) < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o << b; }
      else o << c;
    }
    o << "\"}";
  }
  o << "]},\"profiles\":[{\"type\":\"evented\",\"name\":\"synthetic\",\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":"
    << uint64_t(incl[0]) << ",\"events\":[";
  // Iterative DFS: open at its start, children one after the other, close after its inclusive time.
  struct Item { uint32_t node, next; double start, cursor; };
  std::vector<Item> stack;
  bool first = true;
  double t = 0;
  for (uint32_t k = off[0]; k < off[1]; ++k) {
    const uint32_t top = kids[k];
    o << (first ? "" : ",") << "{\"type\":\"O\",\"frame\":" << frame[top] << ",\"at\":" << uint64_t(t) << "}";
    first = false;
    stack.push_back({top, off[top], t, t});
    while (!stack.empty()) {
      Item& it = stack.back();
      if (it.next < off[it.node + 1]) {
        const uint32_t c = kids[it.next++];
        const double cs = it.cursor;
        it.cursor += incl[c];
        o << ",{\"type\":\"O\",\"frame\":" << frame[c] << ",\"at\":" << uint64_t(cs) << "}";
        stack.push_back({c, off[c], cs, cs});
      } else {
        o << ",{\"type\":\"C\",\"frame\":" << frame[it.node] << ",\"at\":" << uint64_t(it.start + incl[it.node]) << "}";
        stack.pop_back();
      }
    }
    t += incl[top];
  }
  o << "]}]}\n";
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--shape") opt.shape = value();
    else if (a == "--nodes") opt.nodes = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "-o") opt.out = value();
    else if (a == "--speedscope") opt.speedscope = value();
    else if (a == "--metrics") opt.metrics = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--variant") opt.variant = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--meta") {
      const std::string kv = value();
      const size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) return Usage("--meta takes KEY=VALUE");
      opt.meta.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    else return Usage(("unknown argument " + a).c_str());
  }
  if (opt.out.empty()) return Usage("-o OUT.strata is required");
  if (opt.shape != "wide" && opt.shape != "deep" && opt.shape != "hostile") return Usage("--shape must be wide, deep or hostile");
  if (opt.nodes < 2 || opt.nodes > 50'000'000) return Usage("--nodes must be between 2 and 50000000");
  if (opt.metrics < 1 || opt.metrics > 64) return Usage("--metrics must be between 1 and 64");

  fmt::ProfileWriter w;
  w.Meta("command", "strata_synth_profile --shape " + opt.shape + " --nodes " + std::to_string(opt.nodes));
  const uint32_t cpu = w.Metric("cpu_time", "ns");
  std::vector<uint32_t> extra;
  for (size_t k = 1; k < opt.metrics; ++k) extra.push_back(w.Metric("extra_metric_" + std::to_string(k), "ns"));
  Rng rnd;
  // The variant's own stream: the tree's (rnd) is drawn exactly as without it.
  Rng vary{opt.variant * 0x9e3779b97f4a7c15ull + 7};
  std::vector<uint32_t> frames;
  std::vector<std::string> frame_names;  // per writer frame index, for speedscope
  auto frame = [&](fmt::FrameKind kind, const std::string& name, const std::string& file, uint32_t line) {
    const uint32_t f = w.Frame(kind, fmt::kNone, 0, name, file, line);
    if (f >= frame_names.size()) frame_names.resize(f + 1);
    frame_names[f] = name;
    return f;
  };
  frame_names.resize(1);  // frame 0: the root's
  std::vector<int32_t> parent{-1};
  std::vector<uint32_t> node_frame{0}, node_fn{0}, depth{0};
  std::vector<double> self{0};
  auto add = [&](uint32_t p, uint32_t fn) {
    const size_t before = w.node_count();
    const uint32_t n = w.Child(p, frames[fn]);
    if (w.node_count() == before) return;  // an existing child: interned
    fmt::MetricStats s;
    double v = double(1000 * (1 + rnd() % 3));
    if (opt.variant && vary() % 10 == 0) v *= double(1 + vary() % 4);
    s.Add(v);
    w.AddStats(n, cpu, s);
    for (uint32_t x : extra) w.AddStats(n, x, s);
    parent.push_back(int32_t(p));
    node_frame.push_back(frames[fn]);
    node_fn.push_back(fn);
    depth.push_back(depth[p] + 1);
    self.push_back(v);
  };

  if (opt.shape == "hostile") {
    const auto names = HostileNames();
    w.Meta("command", "python3 " + names[0] + " " + names[1] + " " + names[4] + " " + names[5]);
    for (size_t i = 0; i < names.size(); ++i) {
      frames.push_back(frame(fmt::FrameKind::kPython, names[i], "/tmp/" + names[i % 2 ? i : 0] + "/mod.py", uint32_t(10 + i)));
      frames.push_back(frame(fmt::FrameKind::kKernel, names[i], "", 0));
    }
    for (uint32_t f = 0; f < frames.size(); ++f) add(0, f);
    // One level more: each frame under another (names next to names in paths and tooltips).
    for (uint32_t n = 1; n <= frames.size(); ++n) add(n, uint32_t((n + 2) % frames.size()));
  } else {
    const uint32_t kFunctions = 5000;
    for (uint32_t i = 0; i < kFunctions; ++i)
      frames.push_back(frame(fmt::FrameKind::kPython, "function_number_" + std::to_string(i),
                             "/src/some/long/path/module_" + std::to_string(i % 100) + ".py",
                             i + 1 + (opt.variant && (i + opt.variant) % 50 == 0 ? 3 : 0)));
    std::vector<uint32_t> callees(size_t(kFunctions) * 6);
    for (auto& c : callees) c = uint32_t(rnd() % kFunctions);
    const bool deep = opt.shape == "deep";
    while (w.node_count() < opt.nodes) {
      uint32_t p;
      if (deep && rnd() % 100 != 0) p = uint32_t(w.node_count() - 1);  // go on with the chain
      else p = uint32_t(rnd() % w.node_count());
      if (!deep && depth[p] >= 40) continue;
      const uint32_t fn = p == 0 ? uint32_t(rnd() % 8) : callees[size_t(node_fn[p]) * 6 + rnd() % 6];
      add(p, fn);
    }
  }
  for (const auto& [k, v] : opt.meta) w.Meta(k, v);
  std::string error;
  if (!w.WriteAtomically(opt.out, &error)) {
    std::fprintf(stderr, "strata_synth_profile: %s\n", error.c_str());
    return 1;
  }
  uint32_t max_depth = 0;
  for (uint32_t d : depth) max_depth = d > max_depth ? d : max_depth;
  std::printf("%s: %zu nodes, depth %u\n", opt.out.c_str(), w.node_count(), max_depth);
  if (!opt.speedscope.empty()) WriteSpeedscope(opt.speedscope, w, parent, node_frame, self, frame_names);
  return 0;
}
