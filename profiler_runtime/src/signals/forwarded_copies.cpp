#include "signals/forwarded_copies.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "common/clock.h"
#include "strata/record_protocol.h"

namespace strata::rt::signals {
namespace {

// The two deliveries of one group kill are microseconds apart; a second, deliberate kill from
// the same sender within this window is rare enough, and only its forwarded copy is dropped.
constexpr uint64_t kPairWindowNs = 1000000000ull;

// The last unpaired delivery of each signal: which sender, direct or forwarded, and when.
struct LastDelivery {
  std::atomic<uint64_t> sender_and_kind{0};  // sender pid << 1 | forwarded; 0 = none
  std::atomic<uint64_t> at_ns{0};
};
LastDelivery g_last[NSIG];

}  // namespace

bool IsForwardedDuplicate(int sig, const siginfo_t* info) {
  if (sig <= 0 || sig >= NSIG || !info) return false;
  uint64_t sender = 0;
  bool forwarded = false;
  uint64_t tagged = uint64_t(reinterpret_cast<uintptr_t>(info->si_value.sival_ptr));
  if (info->si_code == SI_QUEUE && info->si_pid == getppid() &&
      (tagged >> 32) == record_protocol::kForwardedSignalTag) {
    forwarded = true;
    sender = tagged & 0xffffffffu;
  } else if (info->si_code == SI_USER || info->si_code == SI_QUEUE) {
    sender = uint64_t(uint32_t(info->si_pid));
  } else {
    return false;  // from the kernel or the terminal: the CLI does not forward those
  }
  uint64_t now = NowNs(CLOCK_MONOTONIC);
  uint64_t mine = sender << 1 | (forwarded ? 1 : 0);
  uint64_t partner = sender << 1 | (forwarded ? 0 : 1);
  LastDelivery& last = g_last[sig];
  uint64_t seen = last.sender_and_kind.load(std::memory_order_acquire);
  if (seen == partner && now - last.at_ns.load(std::memory_order_relaxed) < kPairWindowNs &&
      last.sender_and_kind.compare_exchange_strong(seen, 0, std::memory_order_acq_rel)) {
    return true;  // the pair is complete: this one is the copy
  }
  last.at_ns.store(now, std::memory_order_relaxed);
  last.sender_and_kind.store(mine, std::memory_order_release);
  return false;
}

}  // namespace strata::rt::signals
