// Stress target for the reliability suite: each mode prints deterministic lines, so a run under
// `strata record` is compared with a plain one (output, exit status).
//   stress threads N MS     N threads busy MS ms each
//   stress fork N           N forked children (no exec) working 50 ms, exit(i); sums the codes
//   stress fork_exec        fork + exec /bin/echo, then waits
//   stress dlopen N         dlopen/dlclose libm N times, calling cos each time
//   stress tls_dlopen LIB N dlopen N copies of LIB (a library with TLS), kept open, while the
//                           main thread (between loads) and two others allocate and free all
//                           the time: each load leaves the threads' TLS vectors older than the
//                           loaded modules, and glibc grows a vector with malloc at the
//                           thread's next dynamic TLS access
//   stress blocked          every signal blocked in every thread while working, then unblocked
//   stress recurse DEPTH    recursion DEPTH deep, work at the bottom
//   stress segv             a NULL write (SIGSEGV)
//   stress system           system("echo from system") (posix_spawn)
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

volatile double g_sink;

double CpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void Busy(double ms) {
  double end = CpuMs() + ms;
  double x = 0;
  while (CpuMs() < end)
    for (int i = 0; i < 2000; ++i) x += i * 0.5;
  g_sink = x;
}

void* ThreadBody(void* ms) {
  Busy(*static_cast<double*>(ms));
  return nullptr;
}

// malloc and free without pause: a sample lands inside the allocator (holding its lock) often.
std::atomic<bool> g_stop_alloc{false};
__attribute__((noinline)) size_t Churn(double ms = -1) {
  size_t sum = 0;
  std::vector<char*> held(64, nullptr);
  const double end = ms < 0 ? 0 : CpuMs() + ms;
  for (unsigned i = 0; !g_stop_alloc.load(std::memory_order_relaxed) && (ms < 0 || (i & 255) || CpuMs() < end); ++i) {
    size_t k = (i * 2654435761u) % held.size();
    free(held[k]);
    held[k] = static_cast<char*>(malloc(16 + (i * 40503u) % 4000));
    held[k][0] = char(i);
    sum += size_t(held[k][0]);
  }
  for (char* p : held) free(p);
  return sum;
}

void* ChurnBody(void*) {
  Churn();
  return nullptr;
}

// Copies LIB to DIR/m<i>.so (a file of its own each, so each dlopen loads a new module).
bool CopyFile(const char* from, const std::string& to) {
  FILE* in = fopen(from, "rb");
  FILE* out = in ? fopen(to.c_str(), "wb") : nullptr;
  char buf[1 << 16];
  size_t n;
  bool ok = in && out;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
  if (in) fclose(in);
  if (out) ok = fclose(out) == 0 && ok;
  return ok;
}

__attribute__((noinline)) int Recurse(int depth) {
  if (depth == 0) { Busy(300); return 0; }
  return Recurse(depth - 1) + 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* mode = argv[1];
  if (!strcmp(mode, "threads")) {
    int n = argc > 2 ? atoi(argv[2]) : 64;
    double ms = argc > 3 ? atof(argv[3]) : 100;
    std::vector<pthread_t> ts(static_cast<size_t>(n));
    for (auto& t : ts) pthread_create(&t, nullptr, ThreadBody, &ms);
    for (auto& t : ts) pthread_join(t, nullptr);
    printf("threads joined %d\n", n);
    return 0;
  }
  if (!strcmp(mode, "fork")) {
    int n = argc > 2 ? atoi(argv[2]) : 20;
    std::vector<pid_t> pids;
    for (int i = 0; i < n; ++i) {
      fflush(stdout);
      pid_t p = fork();
      if (p == 0) { Busy(50); exit(i); }
      pids.push_back(p);
    }
    int sum = 0;
    for (pid_t p : pids) {
      int st = 0;
      waitpid(p, &st, 0);
      sum += WIFEXITED(st) ? WEXITSTATUS(st) : 1000;
    }
    printf("children %d exit codes sum %d\n", n, sum);
    return 0;
  }
  if (!strcmp(mode, "fork_exec")) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) { execl("/bin/echo", "echo", "from exec", static_cast<char*>(nullptr)); _exit(127); }
    int st = 0;
    waitpid(p, &st, 0);
    printf("echo exited %d\n", WEXITSTATUS(st));
    return 0;
  }
  if (!strcmp(mode, "dlopen")) {
    int n = argc > 2 ? atoi(argv[2]) : 1000;
    double acc = 0;
    for (int i = 0; i < n; ++i) {
      void* h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
      if (!h) { printf("dlopen failed\n"); return 1; }
      auto c = reinterpret_cast<double (*)(double)>(dlsym(h, "cos"));
      acc += c(0.0);
      dlclose(h);
    }
    printf("dlopen loops %d sum %.0f\n", n, acc);
    return 0;
  }
  if (!strcmp(mode, "tls_dlopen")) {
    if (argc < 4) return 2;
    const char* lib = argv[2];
    int n = atoi(argv[3]);
    char dir[] = "/tmp/strata-tls-XXXXXX";
    if (!mkdtemp(dir)) { printf("mkdtemp failed\n"); return 1; }
    pthread_t churners[2];
    for (auto& t : churners) pthread_create(&t, nullptr, ChurnBody, nullptr);
    std::vector<void*> handles;
    int loaded = 0;
    for (int i = 0; i < n; ++i) {
      std::string path = std::string(dir) + "/m" + std::to_string(i) + ".so";
      if (!CopyFile(lib, path)) { printf("copy failed\n"); return 1; }
      void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      unlink(path.c_str());
      if (!h) { printf("dlopen failed: %s\n", dlerror()); return 1; }
      handles.push_back(h);
      ++loaded;
      Churn(2);
    }
    g_stop_alloc.store(true);
    for (auto& t : churners) pthread_join(t, nullptr);
    for (void* h : handles) dlclose(h);
    rmdir(dir);
    printf("tls modules loaded %d\n", loaded);
    return 0;
  }
  if (!strcmp(mode, "blocked")) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    Busy(300);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    Busy(100);
    printf("blocked and unblocked\n");
    return 0;
  }
  if (!strcmp(mode, "recurse")) {
    int d = argc > 2 ? atoi(argv[2]) : 10000;
    printf("depth %d\n", Recurse(d));
    return 0;
  }
  if (!strcmp(mode, "segv")) {
    Busy(200);
    printf("about to fault\n");
    fflush(stdout);
    *static_cast<volatile int*>(nullptr) = 1;
    return 0;
  }
  if (!strcmp(mode, "system")) {
    fflush(stdout);
    int rc = system("echo from system");
    printf("system returned %d\n", WEXITSTATUS(rc));
    return 0;
  }
  return 2;
}
