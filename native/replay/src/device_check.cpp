#include "strata/replay/device_check.h"

namespace strata::replay {
namespace {

std::string Arch(const snapshot::Device& d) { return "sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor); }

std::string Driver(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

std::string CheckDevice(const snapshot::Device& snapped, const snapshot::Device& here, bool any_driver) {
  if (snapped.cc_major != here.cc_major || snapped.cc_minor != here.cc_minor)
    return "the snapshot was taken on " + snapped.name + " (" + Arch(snapped) + "); this GPU is " + here.name + " (" +
           Arch(here) + "): its kernel image cannot run here";
  if (snapped.driver_version != here.driver_version && !any_driver)
    return "the snapshot was taken under CUDA driver " + Driver(snapped.driver_version) + ", this one is " +
           Driver(here.driver_version) + " (--any-driver replays it anyway)";
  return "";
}

}  // namespace strata::replay
