// What each lane does at each moment of its span: the innermost region's activity (a wait
// outranks a load, a load a computation, where they overlap: an async region's wait, from its
// second start to its end, lies over whatever else is open), idle where no region is open.
// Bubbles are the stretches it waits or idles, down to a length the markers themselves cost.
#include "lane_activity.h"

#include <algorithm>
#include <array>

namespace strata::core::overlap::detail {

void LaneActivities(const TraceView& v, double min_bubble_ns, std::vector<LaneActivity>* lanes,
                    std::vector<Bubble>* bubbles) {
  const Trace& t = *v.trace;
  for (size_t l = 0; l < v.lanes.size(); ++l) {
    const LaneView& lv = v.lanes[l];
    if (lv.empty) continue;
    struct Ev { double at; int delta; Activity a; };
    std::vector<Ev> ev;
    for (uint32_t i : lv.intervals) {
      const auto& iv = t.intervals[i];
      if (v.async[i]) {
        ev.push_back({iv.end_ns - iv.wait_ns, +1, Activity::kWait});
        ev.push_back({iv.end_ns, -1, Activity::kWait});
      } else if (v.innermost[i]) {
        ev.push_back({iv.start_ns, +1, v.activity[i]});
        ev.push_back({iv.end_ns, -1, v.activity[i]});
      }
    }
    std::sort(ev.begin(), ev.end(), [](const Ev& a, const Ev& b) { return a.at < b.at || (a.at == b.at && a.delta < b.delta); });
    LaneActivity la;
    la.lane = uint32_t(l);
    la.role = lv.role;
    const double start = lv.start_ns - lv.shift_ns, end = lv.end_ns - lv.shift_ns;
    la.span_ns = end - start;
    std::array<int, 3> open{0, 0, 0};
    double at = start;
    Activity run = Activity::kCompute;
    double run_start = start;
    bool in_run = false;
    auto current = [&]() {
      if (open[2] > 0) return Activity::kWait;
      if (open[1] > 0) return Activity::kLoad;
      if (open[0] > 0) return Activity::kCompute;
      return Activity::kIdle;
    };
    auto close_run = [&](double upto) {
      if (in_run && upto - run_start >= min_bubble_ns) bubbles->push_back(Bubble{uint32_t(l), run_start, upto, run});
      in_run = false;
    };
    auto advance = [&](double to) {
      if (to <= at) return;
      const Activity a = current();
      const double d = to - at;
      switch (a) {
        case Activity::kCompute: la.compute_ns += d; break;
        case Activity::kLoad: la.load_ns += d; break;
        case Activity::kWait: la.wait_ns += d; break;
        case Activity::kIdle: la.idle_ns += d; break;
      }
      const bool bubble = a == Activity::kWait || a == Activity::kIdle;
      if (bubble && !(in_run && run == a)) {
        close_run(at);
        in_run = true;
        run = a;
        run_start = at;
      } else if (!bubble) {
        close_run(at);
      }
      at = to;
    };
    for (const Ev& e : ev) {
      advance(std::min(std::max(e.at, start), end));
      open[size_t(e.a == Activity::kWait ? 2 : e.a == Activity::kLoad ? 1 : 0)] += e.delta;
    }
    advance(end);
    close_run(end);
    lanes->push_back(la);
  }
}

}  // namespace strata::core::overlap::detail
