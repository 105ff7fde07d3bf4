// RankTimelinePerfetto (strata/core/rank_timeline.h): what `strata export RUN_DIR --format
// perfetto` writes, with the TrackEvent writer the GPU timeline's export uses.
#include <string>
#include <vector>

#include "../export/perfetto_trace.h"
#include "strata/core/rank_run.h"
#include "strata/core/rank_timeline.h"

namespace strata::core {

std::string RankTimelinePerfetto(const RankRun& run, const RankTimeline& t) {
  using namespace detail;
  TraceOut out;
  uint64_t next = 1;
  std::vector<uint64_t> rank_track(run.ranks().size());
  for (size_t k = 0; k < run.ranks().size(); ++k) {
    const RankInfo& info = run.ranks()[k];
    rank_track[k] = next++;
    out.Track(rank_track[k], 0, RankTimelineRankName(info));
  }
  auto parent_of = [&](int rank) {
    for (size_t k = 0; k < run.ranks().size(); ++k)
      if (run.ranks()[k].rank == rank) return rank_track[k];
    return uint64_t(0);
  };
  // Slices are by lane, then start. A track holds slices that nest; a lane's slices that overlap
  // without nesting (async collectives) go to the lane's next track that is free then.
  size_t i = 0;
  for (size_t l = 0; l < t.lanes.size(); ++l) {
    const std::string name = RankTimelineLaneName(t.lanes[l]);
    std::vector<std::pair<uint64_t, int64_t>> tracks;  // (track, end of its last slice)
    for (; i < t.slices.size() && t.slices[i].lane == l; ++i) {
      const RankSlice& s = t.slices[i];
      size_t k = 0;
      while (k < tracks.size() && tracks[k].second > s.start_ns) ++k;
      if (k == tracks.size()) {
        tracks.push_back({next++, s.end_ns});
        out.Track(tracks[k].first, parent_of(t.lanes[l].rank), k == 0 ? name : name + ", overlapping " + std::to_string(k));
      }
      tracks[k].second = s.end_ns;
      ProtobufWriter begin;
      begin.Varint(kEventNameIid, out.EventNameIid(t.names[s.name]));
      if (s.source >= 0) {
        const RankSliceSource& src = t.sources[size_t(s.source)];
        begin.Message(kEventAnnotations, StringAnnotation("file", src.file));
        begin.Message(kEventAnnotations, UintAnnotation("line", src.line));
      }
      if (s.node >= 0) begin.Message(kEventAnnotations, IntAnnotation("node", s.node));
      if (s.bytes) begin.Message(kEventAnnotations, UintAnnotation("bytes", s.bytes));
      out.Event(uint64_t(t.origin_unix_ns + s.start_ns), kSliceBegin, tracks[k].first, begin);
      out.Event(uint64_t(t.origin_unix_ns + s.end_ns), kSliceEnd, tracks[k].first, ProtobufWriter());
    }
  }
  return out.Finish();
}

}  // namespace strata::core
