#include "gpu/placement/inductor_provenance.h"

#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>

namespace strata::rt::gpu::inductor {
namespace {

std::string ReadFile(const std::string& path, size_t from, size_t* size) {
  std::string text;
  FILE* f = fopen(path.c_str(), "rbe");
  if (!f) return text;
  if (fseek(f, long(from), SEEK_SET) == 0) {
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  }
  fclose(f);
  if (size) *size = from + text.size();
  return text;
}

// The compile a record belongs to, from its header's frame id and frame compile id.
int64_t CompileOf(const nlohmann::json& h) {
  auto f = h.find("frame_id"), c = h.find("frame_compile_id");
  if (f == h.end() || c == h.end() || !f->is_number_unsigned() || !c->is_number_unsigned()) return -1;
  return int64_t(f->get<uint32_t>()) << 32 | c->get<uint32_t>();
}

}  // namespace

std::vector<SourceTrace> Provenance::ParseTraces(const std::vector<std::string>& traces) {
  std::vector<SourceTrace> out;
  for (const std::string& t : traces) {
    SourceTrace trace;
    // `  File "path", line N, in fn\n    code\n`, one or more frames, outermost first.
    size_t at = 0;
    while ((at = t.find("File \"", at)) != std::string::npos) {
      size_t q = t.find("\", line ", at + 6);
      if (q == std::string::npos) break;
      SourceFrame f;
      f.file = t.substr(at + 6, q - at - 6);
      f.line = uint32_t(strtoul(t.c_str() + q + 8, nullptr, 10));
      size_t in = t.find(", in ", q);
      size_t eol = t.find('\n', q);
      if (in != std::string::npos && (eol == std::string::npos || in < eol))
        f.function = t.substr(in + 5, (eol == std::string::npos ? t.size() : eol) - in - 5);
      trace.push_back(std::move(f));
      at = q;
    }
    if (!trace.empty()) out.push_back(std::move(trace));
  }
  return out;
}

std::unordered_map<uint32_t, std::string> Provenance::CallHandles(std::string_view text) {
  static constexpr std::string_view kMark = "# [Provenance debug handles] ";
  std::unordered_map<uint32_t, std::string> at;
  std::vector<std::string_view> lines;
  for (size_t s = 0; s <= text.size();) {
    size_t e = text.find('\n', s);
    if (e == std::string_view::npos) e = text.size();
    lines.push_back(text.substr(s, e - s));
    s = e + 1;
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    size_t m = lines[i].find(kMark);
    if (m == std::string_view::npos) continue;
    std::string key(lines[i].substr(m + kMark.size()));
    while (!key.empty() && (key.back() == ' ' || key.back() == '\r')) key.pop_back();
    std::string kernel = key.substr(0, key.rfind(':'));
    // The call is the next line naming the kernel, before the next handle comment.
    for (size_t j = i + 1; j < lines.size() && j < i + 12; ++j) {
      if (lines[j].find(kMark) != std::string_view::npos) break;
      size_t k = lines[j].find(kernel);
      if (k != std::string_view::npos && lines[j].find('(', k) != std::string_view::npos &&
          lines[j].find('#') == std::string_view::npos) {
        at[uint32_t(j + 1)] = key;
        break;
      }
    }
  }
  return at;
}

void Provenance::Record(Log& log, std::string_view header, std::string_view payload) {
  size_t brace = header.find("] {");
  if (brace == std::string_view::npos) return;
  nlohmann::json h = nlohmann::json::parse(header.substr(brace + 2), nullptr, false);
  if (!h.is_object()) return;
  auto art = h.find("artifact");
  bool kernel_traces = art != h.end() && art->is_object() &&
                art->value("name", "") == "inductor_provenance_tracking_kernel_stack_traces";
  bool own_artifact = art != h.end() && art->is_object() &&
                      art->value("name", "").rfind("inductor_provenance_tracking", 0) == 0;
  if (!own_artifact && !log.current.empty()) wrappers_[log.current].settled = true;
  if (auto oc = h.find("inductor_output_code"); oc != h.end() && oc->is_object()) {
    auto fn = oc->find("filename");
    if (fn != oc->end() && fn->is_string()) {
      log.current = fn->get<std::string>();
      wrappers_[log.current].compile = CompileOf(h);
    }
    return;
  }
  if (auto cm = h.find("compilation_metrics"); cm != h.end() && cm->is_object()) {
    int64_t compile = CompileOf(h);
    auto file = cm->find("co_filename"), name = cm->find("co_name"), line = cm->find("co_firstlineno");
    if (compile >= 0 && file != cm->end() && file->is_string() && name != cm->end() && name->is_string() &&
        line != cm->end() && line->is_number_unsigned())
      compiled_[compile] = SourceFrame{file->get<std::string>(), name->get<std::string>(), line->get<uint32_t>()};
    return;
  }
  if (!kernel_traces || log.current.empty()) return;
  nlohmann::json p = nlohmann::json::parse(payload, nullptr, false);
  if (!p.is_object()) return;
  Wrapper& w = wrappers_[log.current];
  w.settled = true;
  for (auto it = p.begin(); it != p.end(); ++it) {
    if (!it.value().is_array()) continue;
    std::vector<std::string> traces;
    for (const auto& t : it.value())
      if (t.is_string()) traces.push_back(t.get<std::string>());
    w.by_handle[it.key()] = ParseTraces(traces);
  }
}

void Provenance::AddLog(std::string_view text, const std::string& source) {
  Log& log = logs_[source];
  log.pending.append(text);
  // A record: one header line, then payload lines that start with a tab. It is complete when
  // the next header line has begun.
  std::string_view all = log.pending;
  size_t start = 0, consumed = 0;
  while (start < all.size()) {
    size_t eol = all.find('\n', start);
    if (eol == std::string_view::npos) break;
    size_t end = eol + 1;
    while (end < all.size() && all[end] == '\t') {
      size_t e2 = all.find('\n', end);
      if (e2 == std::string_view::npos) { end = std::string_view::npos; break; }
      end = e2 + 1;
    }
    if (end == std::string_view::npos || end >= all.size()) break;  // may go on: wait
    std::string_view header = all.substr(start, eol - start);
    std::string payload;
    for (size_t p = eol + 1; p < end;) {
      size_t e2 = all.find('\n', p);
      payload.append(all.substr(p + 1, e2 - p - 1));
      payload.push_back('\n');
      p = e2 + 1;
    }
    try {
      Record(log, header, payload);
    } catch (const std::exception&) {  // a record of another shape than expected: skipped
    }
    start = consumed = end;
  }
  log.pending.erase(0, consumed);
}

size_t Provenance::ScanDir(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return 0;
  size_t total = 0;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 5 || name.compare(name.size() - 4, 4, ".log") != 0) continue;
    std::string path = dir + "/" + name;
    size_t from = logs_[path].read;
    size_t size = from;
    std::string text = ReadFile(path, from, &size);
    total += text.size();
    logs_[path].read = size;
    AddLog(text, path);
  }
  closedir(d);
  return total;
}

const SourceFrame* Provenance::CompiledFunction(const std::string& wrapper) const {
  auto w = wrappers_.find(wrapper);
  if (w == wrappers_.end() || !w->second.settled || w->second.compile < 0) return nullptr;
  auto c = compiled_.find(w->second.compile);
  // Dynamo's own wrapper (torch.compile of a module whose code is all torch.nn's, for which
  // Dynamo keeps no source lines) is not the model's code: no frame rather than a wrong one.
  if (c == compiled_.end() || c->second.file.find("/torch/_dynamo/") != std::string::npos) return nullptr;
  return &c->second;
}

const std::vector<SourceTrace>* Provenance::Find(const std::string& wrapper, uint32_t line) {
  auto w = wrappers_.find(wrapper);
  if (w == wrappers_.end()) return nullptr;
  if (!w->second.read) {
    w->second.read = true;
    w->second.handle_at_line = CallHandles(ReadFile(wrapper, 0, nullptr));
  }
  auto h = w->second.handle_at_line.find(line);
  if (h == w->second.handle_at_line.end()) return nullptr;
  auto t = w->second.by_handle.find(h->second);
  return t == w->second.by_handle.end() || t->second.empty() ? nullptr : &t->second;
}

std::vector<SourceFrame> FusedLines(const std::vector<SourceTrace>& traces) {
  std::vector<SourceFrame> out;
  for (const SourceTrace& t : traces) {
    if (t.empty()) continue;
    // The innermost line outside torch's own modules (the model's line that called nn.Linear),
    // else the innermost (a model made of torch's modules only).
    size_t k = t.size() - 1;
    while (k > 0 && t[k].file.find("/torch/nn/modules/") != std::string::npos) --k;
    if (t[k].file.find("/torch/nn/modules/") != std::string::npos) k = t.size() - 1;
    const SourceFrame& f = t[k];
    bool seen = false;
    for (const SourceFrame& o : out) seen = seen || (o.file == f.file && o.line == f.line);
    if (!seen) out.push_back(f);
  }
  return out;
}

}  // namespace strata::rt::gpu::inductor
