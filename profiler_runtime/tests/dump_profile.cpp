// Debug helper: prints a profile's meta and its heaviest paths (not a test).
#include <algorithm>
#include <cstdio>

#include "profile_reader.h"

using namespace strata;

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: dump_profile FILE [top]\n"); return 2; }
  rt::test::Profile p;
  std::string err;
  if (!rt::test::ReadProfile(argv[1], &p, &err)) { fprintf(stderr, "error: %s\n", err.c_str()); return 1; }
  for (auto& [k, v] : p.meta) printf("%s = %s\n", k.c_str(), v.c_str());
  printf("modules %zu frames %zu nodes %zu\n", p.modules.size(), p.frames.size(), p.nodes.size());
  auto nm = p.node_metrics;
  std::sort(nm.begin(), nm.end(), [](auto& a, auto& b) { return a.sum > b.sum; });
  int top = argc > 2 ? atoi(argv[2]) : 5;
  for (int i = 0; i < top && i < int(nm.size()); ++i) {
    printf("-- node %u count %lu sum %.0f min %.0f max %.0f\n", nm[i].node, (unsigned long)nm[i].count, nm[i].sum, nm[i].min, nm[i].max);
    for (auto* f : p.PathOf(nm[i].node)) {
      const char* mod = f->module < p.modules.size() ? p.Str(p.modules[f->module].path).c_str() : "";
      printf("   [%u] %s %s:%u  %s+0x%lx\n", f->kind, p.Str(f->name).c_str(), p.Str(f->file).c_str(), f->line, mod, (unsigned long)f->address);
    }
  }
  return 0;
}
