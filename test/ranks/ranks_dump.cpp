// Test helper: one JSON object per profile on stdout: its meta and its collectives as
// strata::core::ReadCollectives gives them (what the ranks checks compare with the job).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "strata/core/api.h"
#include "strata/core/collectives.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ranks_dump PROFILE...\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    try {
      nlohmann::json out;
      out["path"] = argv[i];
      auto profile = strata::core::Profile::Open(argv[i]);
      for (const auto& [k, v] : profile->meta()) out["meta"][k] = v;
      strata::core::Collectives c = strata::core::ReadCollectives(argv[i]);
      out["collectives"]["present"] = c.present;
      out["collectives"]["calls_dropped"] = c.calls_dropped;
      out["collectives"]["call_limit"] = c.call_limit;
      out["collectives"]["has_wall_clock"] = c.has_wall_clock;
      out["collectives"]["sites"] = nlohmann::json::array();
      for (const auto& s : c.sites)
        out["collectives"]["sites"].push_back({{"node", s.node}, {"op", strata::core::CollectiveOpName(s.op)},
                                               {"name", s.name}, {"backend", s.backend}, {"dtype", s.dtype},
                                               {"group_name", s.group_name}, {"group_size", s.group_size},
                                               {"seq_is_issue_order", s.seq_is_issue_order}, {"elements", s.elements},
                                               {"bytes", s.bytes}, {"count", s.count}, {"total_ns", s.total_ns},
                                               {"min_ns", s.min_ns}, {"max_ns", s.max_ns}, {"frame", s.frame_name},
                                               {"python_file", s.python_file}, {"python_function", s.python_function},
                                               {"python_line", s.python_line}, {"user_file", s.user_file},
                                               {"user_function", s.user_function}, {"user_line", s.user_line}});
      out["collectives"]["calls"] = nlohmann::json::array();
      for (const auto& k : c.calls)
        out["collectives"]["calls"].push_back({{"start_ns", k.start_ns}, {"end_ns", k.end_ns}, {"seq", k.seq}, {"site", k.site}});
      std::printf("%s\n", out.dump().c_str());
    } catch (const strata::core::Error& e) {
      std::fprintf(stderr, "ranks_dump: %s: %s\n", argv[i], e.what());
      return 1;
    }
  }
  return 0;
}
