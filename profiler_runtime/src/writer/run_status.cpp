#include "writer/run_status.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <initializer_list>
#include <cstring>

#include "strata/record_protocol.h"

namespace strata::rt::run_status {
namespace {

char g_path[4096];  // empty: no CLI listening
char g_reap_path[4096];  // every profiled process's, for the children it reaps

// open/write/close only: callable from signal handlers.
void AppendTo(const char* path, const char* prefix, const char* text) {
  if (!path[0]) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  char line[1024];
  size_t n = 0;
  for (const char* s : {prefix, text}) {
    for (; s && *s && n < sizeof(line) - 1; ++s) line[n++] = *s == '\n' ? ' ' : *s;
  }
  line[n++] = '\n';
  ssize_t ignored = write(fd, line, n);  // one write: lines of concurrent writers stay whole
  (void)ignored;
  close(fd);
}

void Append(const char* prefix, const char* text) { AppendTo(g_path, prefix, text); }

// Async-signal-safe decimal (a leading '-' for negatives).
char* Decimal(long v, char* out) {
  char digits[24];
  int n = 0;
  unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
  do { digits[n++] = char('0' + u % 10); u /= 10; } while (u);
  if (v < 0) *out++ = '-';
  while (n) *out++ = digits[--n];
  *out = 0;
  return out;
}

}  // namespace

void Open() {
  const char* path = getenv(record_protocol::kStatusFileEnv);
  if (!path || !*path || strlen(path) >= sizeof(g_path)) return;
  strcpy(g_path, path);
  char pid[24];
  int n = 0;
  char digits[24];
  for (unsigned long v = (unsigned long)getpid(); v; v /= 10) digits[n++] = char('0' + v % 10);
  int i = 0;
  while (n) pid[i++] = digits[--n];
  pid[i] = 0;
  Append(record_protocol::kStatusLoaded, pid);
}

void Close() { g_path[0] = 0; }

void OpenForReaping() {
  const char* path = getenv(record_protocol::kStatusFileEnv);
  if (!path || !*path || strlen(path) >= sizeof(g_reap_path)) return;
  strcpy(g_reap_path, path);
}

void Reaped(long pid, int status) {
  char text[64];
  char* p = Decimal(pid, text);
  *p++ = ' ';
  Decimal(status, p);
  AppendTo(g_reap_path, record_protocol::kStatusReaped, text);
}

void Ending(const char* reason) { Append(record_protocol::kStatusEnding, reason); }
void Written() { Append(record_protocol::kStatusWritten, ""); }
void NotWritten(const char* why) { Append(record_protocol::kStatusNotWritten, why); }

}  // namespace strata::rt::run_status
