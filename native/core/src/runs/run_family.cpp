#include "strata/core/run_family.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>

#include "strata/core/api.h"

namespace strata::core {
namespace {

namespace fs = std::filesystem;

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Reads the meta of one profile; false when it is not a readable profile.
bool ReadMember(const std::string& path, RunMember* m) {
  try {
    auto p = Profile::Open(path);
    m->path = path;
    auto num = [&](const char* key) { auto v = p->meta(key); return v ? std::atol(v->c_str()) : 0L; };
    m->pid = num("pid");
    m->parent_pid = num("parent_pid");
    m->parent_profile = p->meta("parent_profile").value_or("");
    m->command = p->meta("command").value_or("");
    m->ended = p->meta("ended").value_or("");
    m->exit = p->meta("exit").value_or("");
    auto integer = [&](const char* key, long fallback) {
      auto v = p->meta(key);
      if (!v || v->empty()) return fallback;
      char* end = nullptr;
      const long x = std::strtol(v->c_str(), &end, 10);
      return *end == 0 ? x : fallback;
    };
    m->rank = int(integer("rank", -1));
    m->local_rank = int(integer("local_rank", -1));
    m->world_size = int(integer("world_size", 0));
    m->node_rank = int(integer("node_rank", -1));
    m->host = p->meta("host").value_or("");
    m->run_id = p->meta("run_id").value_or("");
    auto wide = [&](const char* key) {
      auto v = p->meta(key);
      return v ? std::strtoll(v->c_str(), nullptr, 10) : 0LL;
    };
    m->start_unix_ns = wide("start_unix_ns");
    m->duration_ns = wide("duration_ns");
    m->start_monotonic_ns = wide("start_monotonic_ns");
    const auto& metrics = p->metrics();
    for (size_t k = 0; k < metrics.size(); ++k)
      if (metrics[k].nature == MetricNature::kAdditive && p->total_count(k) > 0)
        m->totals.push_back({metrics[k].name, metrics[k].unit, p->total(k), p->total_count(k)});
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

std::vector<RunMember> RunFamily(const std::string& path) {
  const bool folder = IsDirectory(path);
  const fs::path dir = folder ? fs::path(path) : fs::path(path).parent_path();
  std::vector<RunMember> all;
  std::error_code ec;
  // From a profile, only its run's files are opened: itself and <stem>.<digits>.strata (every
  // descendant is named after the first process), not every profile in the folder.
  const std::string self_name = folder ? "" : fs::path(path).filename().string();
  auto numbered = [](const std::string& name, const std::string& stem) {
    if (name.rfind(stem, 0) != 0 || name.size() <= stem.size() + 7) return false;
    std::string digits = name.substr(stem.size(), name.size() - stem.size() - 7);
    return !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos;
  };
  std::string stem = folder ? "" : fs::path(path).stem().string() + ".";
  // A child's profile (run.4242.strata): its descendants are named after the first process too.
  if (!folder && numbered(self_name, stem.substr(0, stem.rfind('.', stem.size() - 2) + 1)))
    stem = stem.substr(0, stem.rfind('.', stem.size() - 2) + 1);
  auto in_run = [&](const std::string& name) {
    return folder || name == self_name || numbered(name, stem);
  };
  for (fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".strata") continue;
    if (!in_run(it->path().filename().string())) continue;
    RunMember m;
    if (ReadMember(it->path().string(), &m)) all.push_back(std::move(m));
  }
  if (ec) throw Error("cannot list " + dir.string() + ": " + ec.message());
  // One run per folder: profiles of another run (an earlier recording into the same folder)
  // would merge into ranks that never ran together.
  std::map<std::string, std::vector<std::string>> by_run;
  for (const auto& m : all)
    if (!m.run_id.empty()) by_run[m.run_id].push_back(fs::path(m.path).filename().string());
  if (by_run.size() > 1) {
    std::string msg = "profiles of " + std::to_string(by_run.size()) + " different runs in " + dir.string() + ":";
    for (const auto& [id, names] : by_run) {
      msg += " run " + id + " (" + names.front();
      if (names.size() > 1) msg += " and " + std::to_string(names.size() - 1) + " more";
      msg += ")";
    }
    throw Error(msg + "; keep one run per folder");
  }
  // name -> member; children hang under the member their parent_profile names.
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < all.size(); ++i) by_name[fs::path(all[i].path).filename().string()] = i;
  std::map<size_t, std::vector<size_t>> children;
  std::vector<size_t> roots;
  for (size_t i = 0; i < all.size(); ++i) {
    auto parent = all[i].parent_profile.empty() ? by_name.end() : by_name.find(all[i].parent_profile);
    // The pid check keeps a stale child of an earlier run with the same file name apart.
    if (parent != by_name.end() && parent->second != i && all[parent->second].pid == all[i].parent_pid)
      children[parent->second].push_back(i);
    else roots.push_back(i);
  }
  auto by_pid = [&](size_t a, size_t b) {
    return all[a].pid != all[b].pid ? all[a].pid < all[b].pid : all[a].path < all[b].path;
  };
  for (auto& [p, c] : children) std::sort(c.begin(), c.end(), by_pid);
  std::sort(roots.begin(), roots.end(), by_pid);
  if (!folder) {
    auto self = by_name.find(fs::path(path).filename().string());
    if (self == by_name.end()) {
      RunMember m;
      if (!ReadMember(path, &m)) Profile::Open(path);  // throws the reader's one-line error
      return {m};
    }
    roots = {self->second};
  }
  std::vector<RunMember> out;
  std::vector<bool> seen(all.size(), false);
  std::function<void(size_t, int)> walk = [&](size_t i, int depth) {
    if (seen[i]) return;  // a cycle of names cannot loop
    seen[i] = true;
    out.push_back(all[i]);
    out.back().depth = depth;
    for (size_t c : children[i]) walk(c, depth + 1);
  };
  for (size_t r : roots) walk(r, 0);
  if (out.empty()) throw Error("no Strata profile in " + path);
  return out;
}

std::string AbnormalEnd(const RunMember& m) {
  // strata record's `exit` names the signal that killed the first process; the runtime's `ended`
  // says how each process's profile was finished.
  if (m.exit.rfind("killed", 0) == 0)
    return m.ended == "checkpoint" ? m.exit + "; its profile is its last checkpoint" : m.exit;
  if (m.ended.empty() || m.ended == "exit") {
    if (m.exit.rfind("exited with code ", 0) == 0 && m.exit != "exited with code 0") return m.exit;
    return "";
  }
  if (m.ended == "checkpoint") return "no end written: killed without a chance to write (its last checkpoint)";
  return m.ended;
}

}  // namespace strata::core
