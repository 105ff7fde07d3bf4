#include "python/site_shim.h"

#include <dlfcn.h>
#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "common/log.h"
#include "site_shim_source.inc"  // kSiteShimSource: profiler_runtime/python/sitecustomize.py

namespace strata::rt::python {
namespace {

bool IsPythonProcess() {
  return dlsym(RTLD_DEFAULT, "Py_BytesMain") != nullptr || dlsym(RTLD_DEFAULT, "Py_Initialize") != nullptr;
}

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) {
  remove(path);
  return 0;
}

bool WriteFile(const std::string& path, const char* text) {
  FILE* f = fopen(path.c_str(), "w");
  if (!f) return false;
  size_t n = strlen(text);
  bool ok = fwrite(text, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

}  // namespace

bool SiteShim::Install() {
  if (const char* v = getenv("STRATA_PYTHON_SHIM"); v && strcmp(v, "0") == 0) return false;
  if (!IsPythonProcess()) return false;
  unsetenv("STRATA_DYNAMO_NN_FRAMES");  // a profiled parent's answer, not this process's
  const char* tmp = getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-python-XXXXXX";
  if (!mkdtemp(tmpl.data())) {
    Log("python: cannot create the shim's folder; torch/nn/modules lines stay out of torch.compile's traces");
    return false;
  }
  if (!WriteFile(tmpl + "/sitecustomize.py", kSiteShimSource)) {
    unlink((tmpl + "/sitecustomize.py").c_str());
    rmdir(tmpl.c_str());
    return false;
  }
  dir_ = tmpl;
  const char* cur = getenv("PYTHONPATH");
  std::string path = dir_ + (cur && *cur ? std::string(":") + cur : std::string());
  setenv("PYTHONPATH", path.c_str(), 1);
  return true;
}

std::string SiteShim::DynamoFrames() const {
  if (dir_.empty()) return "";
  const char* v = getenv("STRATA_DYNAMO_NN_FRAMES");  // set by the shim (os.environ)
  return v ? v : "";
}

void SiteShim::Remove() {
  if (dir_.empty()) return;
  // Where Python never ran the shim (python -S, -I, -E), its folder is still there.
  nftw(dir_.c_str(), RemoveEntry, 8, FTW_DEPTH | FTW_PHYS);
  dir_.clear();
}

}  // namespace strata::rt::python
