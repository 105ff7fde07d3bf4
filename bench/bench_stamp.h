// "2026-11-23 — host (2 cores)": when and where the numbers were taken, for the headings the
// benchmark programs append to docs/benchmarks.md.
#pragma once

#include <unistd.h>

#include <ctime>
#include <string>
#include <thread>

inline std::string BenchStamp() {
  char date[32] = "", host[128] = "";
  std::time_t t = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&t));
  gethostname(host, sizeof host - 1);
  return std::string(date) + " — " + host + " (" + std::to_string(std::thread::hardware_concurrency()) + " cores)";
}
