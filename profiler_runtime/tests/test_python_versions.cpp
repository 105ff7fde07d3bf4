// Real CPython programs under `strata record`, on every CPython 3.9-3.13 pyenv has here (the
// build found them: STRATA_TEST_PYTHONS; a missing version is skipped and named): frames merged
// under their native eval calls, line numbers exact, and a program with 100,000 distinct
// functions with every Python frame named. An unsupported version is named in the meta and in
// strata record's warning line.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "profile_reader.h"
#include "test_pythons.h"

namespace {

using strata::format::FrameKind;
using strata::rt::test::Profile;

std::map<std::string, std::string> Pythons() { return strata::rt::test::TestPythons(); }

std::string PythonOrSkip(const std::string& version) {
  auto all = Pythons();
  auto it = all.find(version);
  return it == all.end() ? "" : it->second;
}

struct Recorded {
  int status = -1;
  std::string stderr_text;
  Profile profile;
};

// strata record [extra...] -o OUT -- argv...; stderr captured.
Recorded Record(const std::string& name, const std::vector<std::string>& extra,
                const std::vector<std::string>& argv) {
  std::string dir = ::testing::TempDir();
  std::string out = dir + "/strata_pyver_" + name + "_" + std::to_string(getpid()) + ".strata";
  std::string err = out + ".stderr";
  std::vector<std::string> args = {STRATA_CLI, "record", "-o", out};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back("--");
  args.insert(args.end(), argv.begin(), argv.end());
  Recorded r;
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(err.c_str(), "w", stderr)) _exit(126);
    if (!freopen("/dev/null", "w", stdout)) _exit(126);
    std::vector<char*> a;
    for (auto& s : args) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execv(a[0], a.data());
    _exit(127);
  }
  waitpid(pid, &r.status, 0);
  std::ifstream in(err);
  std::stringstream text;
  text << in.rdbuf();
  r.stderr_text = text.str();
  std::string why;
  EXPECT_TRUE(strata::rt::test::ReadProfile(out, &r.profile, &why)) << why << "\n" << r.stderr_text;
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

// Line numbers (1-based) of `marker` comments in a target script.
std::set<uint32_t> MarkedLines(const std::string& path, const std::string& marker) {
  std::ifstream in(path);
  std::string line;
  std::set<uint32_t> out;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find("# " + marker) != std::string::npos) out.insert(n);
  return out;
}

class PythonVersion : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    python_ = PythonOrSkip(GetParam());
    if (python_.empty())
      GTEST_SKIP() << "CPython " << GetParam() << " not found (~/.pyenv/versions/" << GetParam() << ".*)";
  }
  std::string python_;
};

TEST_P(PythonVersion, MergedFramesAndExactLines) {
  const std::string script = STRATA_TEST_SOURCE_DIR "/targets/lines.py";
  Recorded r = Record("lines_" + GetParam(), {"--period-ms", "2"}, {python_, script, "15"});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.stderr_text;
  const Profile& p = r.profile;
  EXPECT_EQ(p.meta.at("python").rfind(GetParam() + ".", 0), 0u) << p.meta.at("python");
  EXPECT_EQ(r.stderr_text.find("warning"), std::string::npos) << r.stderr_text;
  std::set<uint32_t> loop = MarkedLines(script, "LOOP"), call = MarkedLines(script, "CALL");
  ASSERT_EQ(loop.size(), 2u);
  ASSERT_EQ(call.size(), 1u);
  double busy = 0, busy_on_loop = 0;
  int paths = 0, merged = 0, main_wrong = 0;
  for (const auto& nm : p.node_metrics) {
    auto path = p.PathOf(nm.node);  // root first
    const strata::format::FrameRecord* caller = nullptr;
    bool has_py = false, native_after_py = false, eval_left = false;
    for (const auto* f : path) {
      if (p.Str(f->name) == "_PyEval_EvalFrameDefault") eval_left = true;
      if (FrameKind(f->kind) != FrameKind::kPython) {
        if (has_py) native_after_py = true;
        continue;
      }
      has_py = true;
      EXPECT_NE(p.Str(f->name), "<?>");
      if (p.Str(f->name) == "busy" || p.Str(f->name).find(".busy") != std::string::npos) {
        busy += nm.sum;
        if (loop.count(f->line)) busy_on_loop += nm.sum;
        if (caller && p.Str(caller->name) == "main" && !call.count(caller->line)) ++main_wrong;
      }
      caller = f;
    }
    if (has_py) { ++paths; if (native_after_py && !eval_left) ++merged; }
  }
  ASSERT_GT(busy, 0) << "no samples in busy()";
  EXPECT_GE(busy_on_loop / busy, 0.95) << "busy() time on its loop lines";
  EXPECT_EQ(main_wrong, 0) << "main() frames not on the call line " << *call.begin();
  // Python frames replace their eval-loop frames (none left where frames were spliced in).
  EXPECT_GE(merged * 10, paths * 9) << merged << "/" << paths;
}

TEST_P(PythonVersion, HundredThousandFunctionsAllNamed) {
  Recorded r = Record("many_" + GetParam(), {"--wall", "--period-ms", "1"},
                      {python_, STRATA_TEST_SOURCE_DIR "/targets/many_functions.py", "1000", "100", "2000", "2.5"});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.stderr_text;
  const Profile& p = r.profile;
  size_t python_frames = 0, unnamed = 0;
  std::set<std::string> chain_functions;
  for (const auto& f : p.frames) {
    if (FrameKind(f.kind) != FrameKind::kPython) continue;
    ++python_frames;
    const std::string& name = p.Str(f.name);
    if (name == "<?>" || p.Str(f.file) == "<?>" || name.empty()) ++unnamed;
    if (name.rfind("m", 0) == 0 && name.find("_f") != std::string::npos &&
        p.Str(f.file).find("strata_many_") != std::string::npos)
      chain_functions.insert(name);
  }
  printf("python %s: %zu Python frames, %zu distinct chain functions, samples %s, dropped %s\n",
         GetParam().c_str(), python_frames, chain_functions.size(), p.meta.at("samples").c_str(),
         p.meta.at("samples_dropped").c_str());
  EXPECT_EQ(unnamed, 0u);
  // Most chains are sampled while their leaf spins (≥ 2.5 ms of wall time at a 1 ms period), all
  // 100 frames above it: far more distinct code objects than any per-thread cache holds.
  EXPECT_GE(chain_functions.size(), 50000u);
}

INSTANTIATE_TEST_SUITE_P(Pyenv, PythonVersion, ::testing::Values("3.9", "3.10", "3.11", "3.12", "3.13"),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string s = "Py" + i.param;
                           s.erase(s.find('.'), 1);
                           return s;
                         });

// Outside 3.9-3.13: no frames, and both the meta and strata record say why.
TEST(PythonUnsupported, NamedInMetaAndWarning) {
  std::string python;
  for (const char* v : {"3.8", "3.7", "3.6"}) {
    std::string cmd = std::string("ls -d $HOME/.pyenv/versions/") + v + ".*/bin/python" + v + " 2>/dev/null | tail -1";
    FILE* f = popen(cmd.c_str(), "r");
    char buf[512] = {0};
    if (f && fgets(buf, sizeof(buf), f)) python = buf;
    if (f) pclose(f);
    if (!python.empty()) break;
  }
  while (!python.empty() && (python.back() == '\n')) python.pop_back();
  if (python.empty()) GTEST_SKIP() << "no CPython older than 3.9 under ~/.pyenv/versions";
  Recorded r = Record("old", {}, {python, STRATA_TEST_SOURCE_DIR "/targets/split.py", "3"});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.stderr_text;
  const std::string& meta = r.profile.meta.at("python");
  EXPECT_NE(meta.find("unsupported"), std::string::npos) << meta;
  // One warning line, the last thing strata record prints.
  std::string last = r.stderr_text.substr(r.stderr_text.rfind('\n', r.stderr_text.size() - 2) + 1);
  EXPECT_EQ(last, "strata: warning: Python frames not recorded: python " + meta + "\n") << r.stderr_text;
}

}  // namespace
