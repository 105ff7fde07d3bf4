#include "python/py_reader.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstring>

#include "python/linetable.h"
#include "sampler/sample.h"

namespace strata::rt::python {
namespace {

Runtime g_storage;
std::atomic<const Runtime*> g_runtime{nullptr};
bool g_found = false;
char g_version[64] = "none";

// Cheap validation of a pointer we are about to dereference: not in the zero page, aligned,
// and inside the canonical user half of the address space.
template <typename T>
inline bool Load(uintptr_t addr, T* out) {
  if (addr < 4096 || addr >= (1ull << 47) || (addr & (alignof(T) - 1))) return false;
  *out = *reinterpret_cast<const T*>(addr);
  return true;
}

inline bool IsType(const Runtime* rt, uintptr_t obj, uintptr_t type) {
  uintptr_t t;
  return Load(obj + rt->off->ob_type, &t) && t == type;
}

// UTF-8 bytes of a str object when they are directly available (compact ASCII, or compact
// with the UTF-8 form cached); never converts.
bool ReadUnicode(const Runtime* rt, uintptr_t obj, const char** data, uint32_t* len) {
  const Offsets& o = *rt->off;
  if (!IsType(rt, obj, rt->unicode_type)) return false;
  uint32_t state;
  int64_t length;
  if (!Load(obj + o.unicode_state, &state) || !Load(obj + o.unicode_length, &length)) return false;
  if (length < 0 || length > (1 << 20)) return false;
  if ((state & kStateCompact) && (state & kStateAscii)) {
    *data = reinterpret_cast<const char*>(obj + o.ascii_data);
    *len = uint32_t(length);
    return true;
  }
  if (state & kStateCompact) {
    uintptr_t utf8;
    int64_t ulen;
    if (!Load(obj + o.compact_utf8, &utf8) || utf8 < 4096) return false;
    if (!Load(obj + o.compact_utf8_length, &ulen) || ulen < 0 || ulen > (1 << 20)) return false;
    *data = reinterpret_cast<const char*>(utf8);
    *len = uint32_t(ulen);
    return true;
  }
  return false;
}

uint32_t CodeIndex(const Runtime* rt, CodeCache* cache, uintptr_t code) {
  const Offsets& o = *rt->off;
  uintptr_t file = 0, name = 0;
  int32_t firstlineno = 0;
  Load(code + o.code_filename, &file);
  Load(code + o.code_qualname, &name);
  Load(code + o.code_firstlineno, &firstlineno);
  uint32_t free_slot;
  uint32_t idx = cache->Find(code, file, name, firstlineno, &free_slot);
  if (idx != CodeCache::kMiss) return idx;
  if (free_slot == CodeCache::kMiss) return kPyUnknownCode;
  const char *f = "<?>", *n = "<?>";
  uint32_t flen = 3, nlen = 3;
  ReadUnicode(rt, file, &f, &flen);
  ReadUnicode(rt, name, &n, &nlen);
  if (!cache->Store(free_slot, code, file, name, firstlineno, f, flen, n, nlen))
    return kPyUnknownCode;
  return free_slot;
}

int LineOf(const Runtime* rt, uintptr_t code, uintptr_t prev_instr) {
  const Offsets& o = *rt->off;
  uintptr_t table;
  int64_t size;
  int32_t firstlineno;
  if (!Load(code + o.code_linetable, &table) || !Load(table + o.var_size, &size)) return 0;
  if (!Load(code + o.code_firstlineno, &firstlineno)) return 0;
  if (size < 0 || size > (1 << 22)) return 0;
  intptr_t unit = (intptr_t(prev_instr) - intptr_t(code + o.code_code_adaptive)) / 2;
  if (unit > (1 << 24)) return 0;
  int line = LineForInstruction(reinterpret_cast<const uint8_t*>(table + o.bytes_sval),
                                size_t(size), firstlineno, int(unit));
  return line < 0 ? 0 : line;
}

struct FindLibpython {
  char path[512] = {0};
};

int FindLibpythonCb(dl_phdr_info* info, size_t, void* data) {
  auto* f = static_cast<FindLibpython*>(data);
  if (info->dlpi_name && strstr(info->dlpi_name, "libpython3")) {
    snprintf(f->path, sizeof(f->path), "%s", info->dlpi_name);
    return 1;
  }
  return 0;
}

}  // namespace

const Runtime* Current() { return g_runtime.load(std::memory_order_acquire); }
const char* VersionString() { return g_version; }

bool Detect() {
  if (g_found) return true;
  void* handle = nullptr;
  void* ver = dlsym(RTLD_DEFAULT, "Py_Version");
  void* legacy = ver ? nullptr : dlsym(RTLD_DEFAULT, "Py_GetVersion");
  if (!ver && !legacy) {
    // libpython loaded RTLD_LOCAL (embedding, plugins): look it up by object name.
    FindLibpython f;
    dl_iterate_phdr(FindLibpythonCb, &f);
    if (f.path[0]) handle = dlopen(f.path, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) return false;
    ver = dlsym(handle, "Py_Version");
    legacy = ver ? nullptr : dlsym(handle, "Py_GetVersion");
    if (!ver && !legacy) { dlclose(handle); return false; }
  }
  auto sym = [handle](const char* n) { return handle ? dlsym(handle, n) : dlsym(RTLD_DEFAULT, n); };
  g_found = true;
  if (!ver) {  // CPython < 3.11: report it, read nothing.
    const char* v = reinterpret_cast<const char* (*)()>(legacy)();
    int n = 0;
    while (v[n] && v[n] != ' ' && n < 20) ++n;
    snprintf(g_version, sizeof(g_version), "%.*s (unsupported)", n, v);
    return true;
  }
  unsigned long hex = *static_cast<const unsigned long*>(ver);
  int major = int((hex >> 24) & 0xff), minor = int((hex >> 16) & 0xff), micro = int((hex >> 8) & 0xff);
  Runtime& rt = g_storage;
  snprintf(rt.version, sizeof(rt.version), "%d.%d.%d", major, minor, micro);
  rt.off = OffsetsFor(major, minor);
  rt.get_this_thread_state = reinterpret_cast<void* (*)()>(sym("PyGILState_GetThisThreadState"));
  rt.code_type = reinterpret_cast<uintptr_t>(sym("PyCode_Type"));
  rt.unicode_type = reinterpret_cast<uintptr_t>(sym("PyUnicode_Type"));
  void* eval = sym("_PyEval_EvalFrameDefault");
  if (eval) {
    Dl_info info;
    const ElfW(Sym)* es = nullptr;
    void* esv = nullptr;
    if (dladdr1(eval, &info, &esv, RTLD_DL_SYMENT) && (es = static_cast<const ElfW(Sym)*>(esv))) {
      rt.eval_begin = reinterpret_cast<uintptr_t>(eval);
      rt.eval_end = rt.eval_begin + (es->st_size ? es->st_size : 1);
    }
  }
  if (!rt.off || !rt.get_this_thread_state || !rt.code_type || !rt.unicode_type) {
    snprintf(g_version, sizeof(g_version), "%s (unsupported)", rt.version);
    return true;
  }
  snprintf(g_version, sizeof(g_version), "%s", rt.version);
  g_runtime.store(&rt, std::memory_order_release);
  return true;
}

bool StackKey(const Runtime* rt, uint64_t* key) {
  uintptr_t ts = reinterpret_cast<uintptr_t>(rt->get_this_thread_state());
  if (!ts) return false;
  const Offsets& o = *rt->off;
  uintptr_t cframe, frame;
  if (!Load(ts + o.tstate_cframe, &cframe) || !Load(cframe + o.cframe_current_frame, &frame)) return false;
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; h ^= h >> 29; };
  for (int guard = 0; frame && guard < 4096; ++guard) {
    uintptr_t code = 0, prev = 0, prev_instr = 0;
    if (!Load(frame + o.frame_code, &code) || !Load(frame + o.frame_previous, &prev)) break;
    Load(frame + o.frame_prev_instr, &prev_instr);
    mix(frame);
    mix(code);
    mix(prev_instr);
    frame = prev;
  }
  *key = h;
  return true;
}

bool WalkCurrentThread(const Runtime* rt, CodeCache* cache, PyStack* out) {
  out->nwords = 0;
  out->ngroups = 0;
  out->group_start[0] = 0;
  uintptr_t ts = reinterpret_cast<uintptr_t>(rt->get_this_thread_state());
  if (!ts) return false;
  const Offsets& o = *rt->off;
  uintptr_t cframe, frame;
  if (!Load(ts + o.tstate_cframe, &cframe) || !Load(cframe + o.cframe_current_frame, &frame))
    return false;
  auto close_group = [out] {
    if (out->ngroups < PyStack::kMaxGroups) out->group_start[++out->ngroups] = uint16_t(out->nwords);
  };
  for (int guard = 0; frame && guard < 4096; ++guard) {
    uintptr_t code = 0, prev = 0, prev_instr = 0;
    uint8_t owner = 0, is_entry = 0;
    if (!Load(frame + o.frame_code, &code) || !Load(frame + o.frame_previous, &prev) ||
        !Load(frame + o.frame_owner, &owner))
      break;
    if (o.frame_is_entry >= 0) Load(frame + uint32_t(o.frame_is_entry), &is_entry);
    if (o.minor >= 12 && owner == kOwnedByCStack) {
      close_group();  // the entry frame of one _PyEval_EvalFrameDefault call
      frame = prev;
      continue;
    }
    if (IsType(rt, code, rt->code_type) && Load(frame + o.frame_prev_instr, &prev_instr)) {
      int32_t firsttraceable = 0;
      Load(code + o.code_firsttraceable, &firsttraceable);
      uintptr_t first = code + o.code_code_adaptive;
      bool incomplete = owner != kOwnedByGenerator && prev_instr < first + uintptr_t(firsttraceable) * 2;
      if (!incomplete && out->nwords < PyStack::kMaxFrames)
        out->words[out->nwords++] = PyFrameWord(CodeIndex(rt, cache, code), uint32_t(LineOf(rt, code, prev_instr)));
    }
    if (is_entry) close_group();
    frame = prev;
  }
  if (out->nwords > out->group_start[out->ngroups]) close_group();
  return out->nwords > 0;
}

}  // namespace strata::rt::python
