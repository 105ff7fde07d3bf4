// Parser of XLA's after-optimizations HLO text dumps (see xla_hlo_map.h).
#include "gpu/placement/xla_hlo_map.h"

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace strata::rt::gpu::xla {
namespace {

constexpr size_t kMaxFileBytes = 64u << 20;  // larger dumps are skipped (bounded work)
constexpr int kMaxStackDepth = 128;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Leading unsigned integer of `s` (advances it), -1 if none.
int64_t TakeInt(std::string_view* s) {
  size_t i = 0;
  int64_t v = 0;
  while (i < s->size() && (*s)[i] >= '0' && (*s)[i] <= '9' && i < 18) v = v * 10 + ((*s)[i++] - '0');
  if (i == 0) return -1;
  s->remove_prefix(i);
  return v;
}

// Value of `key=N` inside `s` (key preceded by a separator), -1 if absent.
int64_t IntField(std::string_view s, std::string_view key) {
  for (size_t at = s.find(key); at != std::string_view::npos; at = s.find(key, at + 1)) {
    if (at > 0 && s[at - 1] != ' ' && s[at - 1] != '{' && s[at - 1] != ',') continue;
    std::string_view rest = s.substr(at + key.size());
    if (rest.empty() || rest[0] != '=') continue;
    rest.remove_prefix(1);
    return TakeInt(&rest);
  }
  return -1;
}

// Quoted string starting at s[0] == '"' (C escapes \" \\ \n handled), advances past it.
bool TakeQuoted(std::string_view* s, std::string* out) {
  if (s->empty() || (*s)[0] != '"') return false;
  out->clear();
  size_t i = 1;
  for (; i < s->size() && (*s)[i] != '"'; ++i) {
    char c = (*s)[i];
    if (c == '\\' && i + 1 < s->size()) {
      char n = (*s)[++i];
      c = n == 'n' ? '\n' : n == 't' ? '\t' : n;
    }
    out->push_back(c);
  }
  if (i >= s->size()) return false;
  s->remove_prefix(i + 1);
  return true;
}

// Value of `key="..."` inside `s`.
bool StringField(std::string_view s, std::string_view key, std::string* out) {
  for (size_t at = s.find(key); at != std::string_view::npos; at = s.find(key, at + 1)) {
    if (at > 0 && s[at - 1] != ' ' && s[at - 1] != '{' && s[at - 1] != ',') continue;
    std::string_view rest = s.substr(at + key.size());
    if (rest.size() < 2 || rest[0] != '=' || rest[1] != '"') continue;
    rest.remove_prefix(1);
    return TakeQuoted(&rest, out);
  }
  return false;
}

// The `metadata={...}` group of an instruction line (quotes respected), "" if none.
std::string_view Metadata(std::string_view line) {
  size_t at = line.find(", metadata={");
  if (at == std::string_view::npos) return {};
  size_t b = at + 12, i = b;
  bool quoted = false;
  for (; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '}') {
      break;
    }
  }
  return line.substr(b, i - b);
}

bool IsLibraryTarget(std::string_view t) {
  return StartsWith(t, "__cublas") || StartsWith(t, "__cudnn") || StartsWith(t, "__cusolver") ||
         StartsWith(t, "__cufft") || StartsWith(t, "__gpu$xla.gpu.cublas");
}

std::string ReadFile(const std::string& path) {
  std::string out;
  FILE* f = fopen(path.c_str(), "re");
  if (!f) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
    if (out.size() + n > kMaxFileBytes) { out.clear(); break; }
    out.append(buf, n);
  }
  fclose(f);
  return out;
}

// thunk_sequence.txt: "002: kCustomKernel   [...] input_reduce_fusion grid: [256, 1, 1] threads: [256, 1, 1] ..."
// -> kernel name -> (grid, block) products.
std::map<std::string, std::pair<int64_t, int64_t>> ThunkDims(std::string_view text) {
  std::map<std::string, std::pair<int64_t, int64_t>> dims;
  auto product = [](std::string_view s) -> int64_t {
    // "[256, 1, 1]"
    if (s.empty() || s[0] != '[') return -1;
    s.remove_prefix(1);
    int64_t p = 1;
    for (int k = 0; k < 3; ++k) {
      while (!s.empty() && (s[0] == ' ' || s[0] == ',')) s.remove_prefix(1);
      int64_t v = TakeInt(&s);
      if (v < 0) return -1;
      p *= v;
    }
    return p;
  };
  while (!text.empty()) {
    size_t e = text.find('\n');
    std::string_view line = text.substr(0, e);
    text = e == std::string_view::npos ? std::string_view() : text.substr(e + 1);
    size_t g = line.find(" grid: ");
    size_t t = line.find(" threads: ");
    size_t close = line.find(']');
    if (g == std::string_view::npos || t == std::string_view::npos || close == std::string_view::npos || close > g)
      continue;
    std::string_view name = Trim(line.substr(close + 1, g - close - 1));
    if (name.empty() || name.find(' ') != std::string_view::npos) continue;
    dims[std::string(name)] = {product(line.substr(g + 7)), product(line.substr(t + 10))};
  }
  return dims;
}

}  // namespace

std::string KernelNameOf(std::string_view instruction) {
  std::string s(instruction);
  for (char& c : s)
    if (c == '.' || c == '-') c = '_';
  return s;
}

size_t HloMap::AddModule(std::string_view text, std::string_view module, std::string_view thunks) {
  uint32_t module_index = uint32_t(modules_.size());
  modules_.emplace_back(module);
  std::map<int64_t, std::string> files, functions;
  struct Loc { int64_t file, function, line; };
  std::map<int64_t, Loc> locations;
  std::map<int64_t, std::pair<int64_t, int64_t>> frames;  // id -> (location, parent id or 0)
  enum { kNone, kFiles, kFunctions, kLocations, kFrames, kBody } section = kNone;
  std::map<std::string, std::pair<int64_t, int64_t>> dims = ThunkDims(thunks);
  std::map<int64_t, std::vector<PyFrame>> stacks;  // stack_frame_id -> path (memo)
  size_t added = 0;
  int32_t last_in_computation = -1;
  // Per computation, the source line of each of its instructions (callees come before callers
  // in the text: a fusion's computation is known when the fusion is read).
  std::map<std::string, std::vector<PyFrame>, std::less<>> computation_lines;
  std::string computation;

  auto stack_of = [&](int64_t id) -> const std::vector<PyFrame>& {
    auto it = stacks.find(id);
    if (it != stacks.end()) return it->second;
    const int64_t key = id;
    std::vector<PyFrame> leaf_first;
    for (int depth = 0; id > 0 && depth < kMaxStackDepth; ++depth) {
      auto f = frames.find(id);
      if (f == frames.end()) break;
      auto l = locations.find(f->second.first);
      if (l != locations.end()) {
        PyFrame pf;
        auto fn = files.find(l->second.file);
        auto fu = functions.find(l->second.function);
        if (fn != files.end()) pf.file = fn->second;
        if (fu != functions.end()) pf.function = fu->second;
        pf.line = l->second.line > 0 ? uint32_t(l->second.line) : 0;
        leaf_first.push_back(std::move(pf));
      }
      int64_t parent = f->second.second;
      if (parent >= id) break;  // parents are created before their children
      id = parent;
    }
    std::reverse(leaf_first.begin(), leaf_first.end());
    return stacks.emplace(key, std::move(leaf_first)).first->second;
  };

  while (!text.empty()) {
    size_t e = text.find('\n');
    std::string_view raw = text.substr(0, e);
    text = e == std::string_view::npos ? std::string_view() : text.substr(e + 1);
    std::string_view line = Trim(raw);
    if (line.empty()) continue;
    if (line == "FileNames") { section = kFiles; continue; }
    if (line == "FunctionNames") { section = kFunctions; continue; }
    if (line == "FileLocations") { section = kLocations; continue; }
    if (line == "StackFrames") { section = kFrames; continue; }
    if (line.back() == '{' && raw[0] != ' ') {  // a computation starts: "[ENTRY ]%name (...) -> ... {"
      section = kBody;
      last_in_computation = -1;
      std::string_view head = line;
      if (StartsWith(head, "ENTRY ")) head.remove_prefix(6);
      computation.clear();
      if (!head.empty() && head[0] == '%') computation = std::string(head.substr(1, head.find_first_of(" (") - 1));
      continue;
    }
    if (section >= kFiles && section <= kFrames) {
      std::string_view rest = line;
      int64_t id = TakeInt(&rest);
      if (id < 0) { section = kNone; continue; }
      rest = Trim(rest);
      if (section == kFiles || section == kFunctions) {
        std::string s;
        if (TakeQuoted(&rest, &s)) (section == kFiles ? files : functions)[id] = std::move(s);
      } else if (section == kLocations) {
        locations[id] = {IntField(rest, "file_name_id"), IntField(rest, "function_name_id"), IntField(rest, "line")};
      } else {
        int64_t parent = IntField(rest, "parent_frame_id");
        frames[id] = {IntField(rest, "file_location_id"), parent > 0 ? parent - 1 : 0};
      }
      continue;
    }
    if (section != kBody) continue;
    if (line == "}") { last_in_computation = -1; continue; }
    // "[ROOT ]%name = <shape> opcode(args), attrs..."
    if (StartsWith(line, "ROOT ")) line.remove_prefix(5);
    if (line.empty() || line[0] != '%') continue;
    size_t eq = line.find(" = ");
    if (eq == std::string_view::npos) continue;
    std::string_view name = line.substr(1, eq - 1);
    std::string_view rhs = line.substr(eq + 3);
    bool fusion = false, custom = false;
    // The opcode is the word right before the first '(' that follows the shape.
    size_t depth = 0, i = 0;
    for (; i < rhs.size(); ++i) {  // skip the shape: "(f32[..]{..}, s8[..])" or "f32[..]{..}"
      char c = rhs[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') { if (depth) --depth; }
      else if (c == ' ' && depth == 0) break;
    }
    std::string_view after = rhs.substr(std::min(i + 1, rhs.size()));
    {  // this instruction's source line, for the fusions that call this computation
      std::string_view meta = Metadata(line);
      PyFrame leaf;
      const int64_t sf = IntField(meta, "stack_frame_id");
      if (sf > 0) {
        const std::vector<PyFrame>& st = stack_of(sf);
        if (!st.empty()) leaf = st.back();
      } else if (StringField(meta, "source_file", &leaf.file)) {
        const int64_t l = IntField(meta, "source_line");
        leaf.line = l > 0 ? uint32_t(l) : 0;
      }
      if (!leaf.file.empty() && leaf.line > 0) {
        std::vector<PyFrame>& lines = computation_lines[computation];
        bool seen = false;
        for (const PyFrame& o : lines) seen = seen || (o.file == leaf.file && o.line == leaf.line);
        if (!seen) lines.push_back(std::move(leaf));
      }
    }
    if (StartsWith(after, "fusion(")) fusion = true;
    else if (StartsWith(after, "custom-call(")) custom = true;
    if (!fusion && !custom) continue;
    HloKernel k;
    k.instruction = std::string(name);
    if (custom) {
      if (!StringField(after, "custom_call_target", &k.target) || !IsLibraryTarget(k.target)) continue;
      k.library = true;
    } else {
      k.kernel = KernelNameOf(name);
      auto d = dims.find(k.kernel);
      if (d != dims.end()) { k.grid = d->second.first; k.block = d->second.second; }
      // "calls=%fused_reduce": the lines of the computation it fuses.
      size_t c = after.find("calls=%");
      if (c != std::string_view::npos) {
        std::string_view callee = after.substr(c + 7);
        callee = callee.substr(0, callee.find_first_of(", }"));
        auto lines = computation_lines.find(callee);
        if (lines != computation_lines.end()) k.fused = lines->second;
      }
    }
    std::string_view meta = Metadata(line);
    StringField(meta, "op_name", &k.op_name);
    int64_t sf = IntField(meta, "stack_frame_id");
    if (sf > 0) {
      k.stack = stack_of(sf);
    } else {  // older XLA: source_file= / source_line= only
      PyFrame pf;
      if (StringField(meta, "source_file", &pf.file)) {
        int64_t l = IntField(meta, "source_line");
        pf.line = l > 0 ? uint32_t(l) : 0;
        k.stack.push_back(std::move(pf));
      }
    }
    k.module = module_index;
    k.prev = last_in_computation;
    uint32_t index = uint32_t(kernels_.size());
    last_in_computation = int32_t(index);
    if (!k.library) by_name_[k.kernel].push_back(index);
    kernels_.push_back(std::move(k));
    ++added;
  }
  return added;
}

size_t HloMap::ScanDir(const std::string& dir, size_t max_files, int64_t min_age_ns, bool* more) {
  if (more) *more = false;
  DIR* d = opendir(dir.c_str());
  if (!d) return 0;
  std::vector<std::string> fresh;
  while (dirent* ent = readdir(d)) {
    std::string_view n = ent->d_name;
    if (!EndsWith(n, "after_optimizations.txt")) continue;
    if (seen_.count(std::string(n))) continue;
    fresh.emplace_back(n);
  }
  closedir(d);
  std::sort(fresh.begin(), fresh.end());  // module_NNNN: compile order
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  size_t read = 0;
  for (const std::string& n : fresh) {
    if (read >= max_files) { if (more) *more = true; break; }
    if (min_age_ns > 0) {
      struct stat st{};
      if (stat((dir + "/" + n).c_str(), &st) != 0) continue;
      int64_t age = (int64_t(now.tv_sec) - st.st_mtim.tv_sec) * 1000000000ll + (now.tv_nsec - st.st_mtim.tv_nsec);
      if (age < min_age_ns) { if (more) *more = true; continue; }
    }
    seen_.insert(n);
    ++read;
    std::string text = ReadFile(dir + "/" + n);
    // A complete module text ends with its ENTRY computation's '}'; otherwise it is still being
    // written: read it again later.
    size_t last = text.find_last_not_of(" \t\r\n");
    if (last == std::string::npos || text[last] != '}' || text.find("\nENTRY ") == std::string::npos) {
      seen_.erase(n);
      if (more) *more = true;
      continue;
    }
    // module_0001.jit_f.sm_9.0a_gpu_after_optimizations.txt -> module_0001.jit_f
    std::string stem = n.substr(0, n.size() - strlen("after_optimizations.txt"));
    size_t dot2 = stem.find('.', stem.find('.') + 1);
    std::string module = dot2 == std::string::npos ? stem : stem.substr(0, dot2);
    std::string thunks = ReadFile(dir + "/" + module + ".thunk_sequence.txt");
    AddModule(text, module, thunks);
  }
  return read;
}

std::vector<uint32_t> HloMap::Find(std::string_view name, int64_t grid, int64_t block) const {
  std::vector<uint32_t> out;
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return out;
  for (uint32_t i : it->second) {
    const HloKernel& k = kernels_[i];
    if (grid >= 0 && k.grid >= 0 && k.grid != grid) continue;
    if (block >= 0 && k.block >= 0 && k.block != block) continue;
    out.push_back(i);
  }
  return out;
}

int32_t HloMap::LibraryBefore(uint32_t index) const {
  if (index >= kernels_.size()) return -1;
  int32_t p = kernels_[index].prev;
  return p >= 0 && kernels_[size_t(p)].library ? p : -1;
}

std::string XlaFlagsWithDump(const char* current, const std::string& dir, std::string* user_dir,
                             bool* user_text) {
  std::string flags = current ? current : "";
  *user_text = flags.find("--xla_dump_hlo_as_text") != std::string::npos;
  size_t at = flags.find("--xla_dump_to=");
  if (at != std::string::npos) {
    size_t b = at + strlen("--xla_dump_to="), e = flags.find_first_of(" \t", b);
    *user_dir = flags.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (user_dir->size() >= 2 && (*user_dir)[0] == '"' && user_dir->back() == '"')
      *user_dir = user_dir->substr(1, user_dir->size() - 2);
    if (!*user_text) flags += " --xla_dump_hlo_as_text";
    return flags;
  }
  user_dir->clear();
  if (!flags.empty()) flags += ' ';
  flags += "--xla_dump_to=" + dir;
  if (!*user_text) flags += " --xla_dump_hlo_as_text";
  return flags;
}

}  // namespace strata::rt::gpu::xla
