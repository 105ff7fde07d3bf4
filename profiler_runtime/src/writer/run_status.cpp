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

// open/write/close only: callable from signal handlers.
void Append(const char* prefix, const char* text) {
  if (!g_path[0]) return;
  int fd = open(g_path, O_WRONLY | O_APPEND | O_CLOEXEC);
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

void Ending(const char* reason) { Append(record_protocol::kStatusEnding, reason); }
void Written() { Append(record_protocol::kStatusWritten, ""); }
void NotWritten(const char* why) { Append(record_protocol::kStatusNotWritten, why); }

}  // namespace strata::rt::run_status
