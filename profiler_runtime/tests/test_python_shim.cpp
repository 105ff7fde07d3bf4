// Strata's Python-side shim, on every CPython 3.9-3.13 pyenv has here and on Debian's python3:
// the program keeps its own sitecustomize, sys.path and PYTHONPATH; Dynamo's filter of
// torch/nn/modules frames is switched off when Dynamo's translator is imported (a stand-in
// torch in targets/python_shim), with no frame of the shim around that import; STRATA_NN_MODULE_FRAMES=0 leaves it on; the shim's folder is
// gone while the program runs, and nothing is left in TMPDIR once it has ended.
#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_pythons.h"

namespace {

const std::string kTargets = STRATA_TEST_SOURCE_DIR "/targets/python_shim";

std::map<std::string, std::string> Pythons() {
  std::map<std::string, std::string> out = strata::rt::test::TestPythons();
  if (access("/usr/bin/python3", X_OK) == 0) out["system"] = "/usr/bin/python3";
  return out;
}

std::vector<std::string> Leftovers(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.rfind("strata-", 0) == 0) out.push_back(n);
    }
    closedir(d);
  }
  return out;
}

struct Seen {
  int status = -1;
  nlohmann::json result;
  std::vector<std::string> leftovers;
};

// strata record -- python shim_probe.py, with the stand-in torch and the program's own
// sitecustomize on PYTHONPATH and a TMPDIR of its own.
Seen RecordProbe(const std::string& python, const std::string& name, bool frames_on) {
  std::string base = ::testing::TempDir() + "/strata_shim_" + name + "_" + std::to_string(getpid());
  std::string tmp = base + ".tmp", out = base + ".strata", json = base + ".json";
  EXPECT_EQ(system(("rm -rf '" + tmp + "' && mkdir -p '" + tmp + "'").c_str()), 0);
  Seen s;
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TMPDIR", tmp.c_str(), 1);
    setenv("PYTHONPATH", (kTargets + ":" + kTargets + "/user_site").c_str(), 1);
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1);  // keeps the source tree clean
    unsetenv("USER_SITECUSTOMIZE_RAN");
    if (!frames_on) setenv("STRATA_NN_MODULE_FRAMES", "0", 1);
    if (!freopen("/dev/null", "w", stdout)) _exit(126);
    execl(STRATA_CLI, STRATA_CLI, "record", "--no-children", "-o", out.c_str(), "--", python.c_str(),
          (kTargets + "/shim_probe.py").c_str(), json.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  waitpid(pid, &s.status, 0);
  std::ifstream in(json);
  if (in) s.result = nlohmann::json::parse(in, nullptr, false);
  s.leftovers = Leftovers(tmp);
  std::remove(out.c_str());
  std::remove(json.c_str());
  EXPECT_EQ(system(("rm -rf '" + tmp + "'").c_str()), 0);
  return s;
}

TEST(PythonShim, ProgramKeepsItsOwnSiteAndPathsAndDynamoKeepsModuleFrames) {
  auto pythons = Pythons();
  ASSERT_FALSE(pythons.empty()) << "no CPython found";
  for (const auto& [version, python] : pythons) {
    SCOPED_TRACE(version + " " + python);
    Seen s = RecordProbe(python, version, true);
    ASSERT_TRUE(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 0);
    ASSERT_TRUE(s.result.is_object());
    EXPECT_EQ(s.result["pythonpath"], kTargets + ":" + kTargets + "/user_site");
    EXPECT_FALSE(s.result["shim_on_sys_path"].get<bool>());
    EXPECT_FALSE(s.result["shim_folder_left"].get<bool>()) << "the shim's folder outlives its import";
    EXPECT_TRUE(s.result["user_sitecustomize_ran"].get<bool>());
    EXPECT_EQ(s.result["sitecustomize_module"], kTargets + "/user_site/sitecustomize.py");
    EXPECT_FALSE(s.result["nn_module_filter"].get<bool>()) << "Dynamo's filter still on";
    EXPECT_EQ(s.result["reported"], "recorded");
    EXPECT_TRUE(s.result["shim_frames_at_import"].empty()) << s.result["shim_frames_at_import"].dump()
        << ": a frame of the shim around the translator's import";
    EXPECT_EQ(s.result["dynamo_package_class"], "module");
    EXPECT_TRUE(s.leftovers.empty()) << s.leftovers.front();
  }
}

TEST(PythonShim, SwitchedOffLeavesDynamoAsItIs) {
  auto pythons = Pythons();
  ASSERT_FALSE(pythons.empty()) << "no CPython found";
  Seen s = RecordProbe(pythons.rbegin()->second, "off", false);
  ASSERT_TRUE(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 0);
  ASSERT_TRUE(s.result.is_object());
  EXPECT_TRUE(s.result["nn_module_filter"].get<bool>());
  EXPECT_TRUE(s.result["reported"].is_null());
  EXPECT_TRUE(s.result["user_sitecustomize_ran"].get<bool>());
}

}  // namespace
