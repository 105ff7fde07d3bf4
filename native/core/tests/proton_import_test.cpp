// Proton import (issue 7, part 4): Proton's chrome trace of Triton kernels becomes a region trace.
// Synthetic traces pin the arithmetic (Proton's axis, the clock rate, nesting, iterations, bad
// input); the H100 fixtures (test/fixtures/h100/proton, made by test/proton/record_h100.sh) are
// what Triton 3.6 really writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "export/gzip.h"
#include "strata/core/api.h"
#include "strata/core/proton_import.h"
#include "strata/core/record_cost.h"

namespace {

using namespace strata::core::regions;
using json = nlohmann::json;

json Ev(const std::string& name, const std::string& pid, int warp, double ts_cycles, double dur_cycles) {
  // Proton writes ts and dur in µs on its 1000 MHz axis: cycles / 1000.
  return {{"ph", "X"}, {"name", name}, {"cat", "k"}, {"pid", pid}, {"tid", "warp " + std::to_string(warp) + " (line 0)"},
          {"ts", ts_cycles / 1000.0}, {"dur", dur_cycles / 1000.0}, {"args", {{"Frequency (MHz)", 1000.0}}}};
}

std::string Synthetic() {
  json ev = json::array();
  // CTA 0 on SM 4 starts at 0; CTA 1 on SM 6 starts 200 ns later (globaltimer).
  for (auto [cta, sm, base] : {std::tuple{0, 4, 0.0}, std::tuple{1, 6, 200.0}}) {
    const std::string pid = "mm_kernel Core" + std::to_string(sm) + " CTA" + std::to_string(cta);
    for (int w = 0; w < 2; ++w) {
      ev.push_back(Ev("kernel", pid, w, base, 1000));
      for (int i = 0; i < 3; ++i) {
        ev.push_back(Ev("load", pid, w, base + 100 + 300 * i, 100));
        ev.push_back(Ev("dot", pid, w, base + 200 + 300 * i, 150));
      }
    }
  }
  return json{{"displayTimeUnit", "ns"}, {"traceEvents", ev}}.dump();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ProtonImport, LanesNamesAndNesting) {
  ProtonTrace p = ImportProtonTrace(Synthetic());
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.kernels, std::vector<std::string>{"mm_kernel"});
  ASSERT_EQ(p.trace.lanes.size(), 4u);
  EXPECT_EQ(p.trace.intervals.size(), 4u * 7);
  EXPECT_EQ(p.names.at(1).name, "kernel");
  EXPECT_EQ(p.names.at(2).name, "load");
  EXPECT_EQ(p.names.at(3).name, "dot");
  const Lane& l2 = p.trace.lanes[2];
  EXPECT_EQ(l2.meta.smid, 6u);
  EXPECT_EQ(l2.meta.block_linear, 1u);
  EXPECT_EQ(l2.meta.group, 0u);
  EXPECT_EQ(l2.meta.grouping, 1u);
  for (const Interval& iv : p.trace.intervals) {
    if (iv.region == 1) {
      EXPECT_EQ(iv.depth, 0u);
      EXPECT_EQ(iv.iteration, -1);  // once per lane: not a loop scope
    } else {
      EXPECT_EQ(iv.depth, 1u);
      ASSERT_GE(iv.parent, 0);
      EXPECT_EQ(p.trace.intervals[iv.parent].region, 1);
      EXPECT_GE(iv.iteration, 0);
      EXPECT_LE(iv.iteration, 2);
    }
  }
  // Without a rate, Proton's axis is kept and the trace says so.
  EXPECT_TRUE(p.trace.HasIssue(IssueKind::kNoClockRate));
  EXPECT_DOUBLE_EQ(p.trace.intervals[0].duration_ns(), 1000);
}

TEST(ProtonImport, RecordOrderAndReplay) {
  // Per lane: kernel enter (0), then load / dot enters and exits in time order, kernel exit (13).
  ProtonTrace p = ImportProtonTrace(Synthetic(), {1.0});
  ASSERT_TRUE(p.ok);
  for (uint32_t lane = 0; lane < p.trace.lanes.size(); ++lane) {
    std::set<uint32_t> positions;
    for (const Interval& iv : p.trace.intervals) {
      if (iv.lane != lane) continue;
      EXPECT_LT(iv.start_index, iv.end_index);
      positions.insert(iv.start_index);
      positions.insert(iv.end_index);
      if (iv.parent >= 0) {
        EXPECT_GT(iv.start_index, p.trace.intervals[iv.parent].start_index);
        EXPECT_LT(iv.end_index, p.trace.intervals[iv.parent].end_index);
      }
    }
    ASSERT_EQ(positions.size(), 14u);
    EXPECT_EQ(*positions.rbegin(), 13u);
  }
  // 10 cycles a record, 25 more per "load" (the step): the kernel scope holds 13 records from
  // its enter to its exit and 3 steps; a dot, one record.
  ReplayProtonTrace(p, 10, {{2, 25}});  // "load" is region 2
  EXPECT_DOUBLE_EQ(p.trace.record_cost_cycles, 10);
  EXPECT_EQ(p.trace.start_cost_cycles, (StartCosts{{2, 25}}));
  for (const Interval& iv : p.trace.intervals) {
    const double taken = iv.raw_duration_ns() - iv.duration_ns();
    if (iv.region == 1) EXPECT_DOUBLE_EQ(taken, 13 * 10 + 3 * 25);
    if (iv.region == 2) EXPECT_DOUBLE_EQ(taken, 10 + 25);
    if (iv.region == 3) EXPECT_DOUBLE_EQ(taken, 10);
  }
  EXPECT_DOUBLE_EQ(p.trace.lanes[0].removed_cycles, 14 * 10 + 3 * 25);
  // Again with another cost: replaces, does not add.
  ReplayProtonTrace(p, 5);
  EXPECT_DOUBLE_EQ(p.trace.intervals[0].raw_duration_ns() - p.trace.intervals[0].duration_ns(), 13 * 5);
}

// The record cost fitted on the kernel's own pair: the instrumented trace against a reference of
// the same kernel whose "kernel" scope holds nothing (200 cycles shorter on every warp).
TEST(ProtonImport, RecordCostFittedOnAReferenceTrace) {
  json ref = json::array();
  for (auto [cta, sm, base] : {std::tuple{0, 4, 0.0}, std::tuple{1, 6, 200.0}})
    for (int w = 0; w < 2; ++w)
      ref.push_back(Ev("kernel", "mm_kernel Core" + std::to_string(sm) + " CTA" + std::to_string(cta), w, base, 800));
  const std::string path = ::testing::TempDir() + "/proton_reference.chrome_trace";
  std::ofstream(path) << json{{"traceEvents", ref}}.dump();
  RecordCostRequest r;
  r.fit_reference = path;
  r.fit_region = "kernel";
  ProtonTrace p = ImportProtonTrace(Synthetic(), {1.0});
  AppliedRecordCost a = ApplyProtonRecordCost(r, p);
  ASSERT_TRUE(a.fitted);
  // 13 records from the scope's enter to its exit, one in the reference's (its enter): 12 more.
  EXPECT_NEAR(a.record_cost_cycles, 200.0 / 12, 1e-9);
  EXPECT_EQ(a.fit.lanes, 4u);
  EXPECT_NEAR(p.trace.intervals[0].duration_ns(), 800 - 200.0 / 12, 1e-9);  // the reference, replayed
  EXPECT_NE(a.note.find("fitted on the kernel's own pair"), std::string::npos) << a.note;
  // Per step ("load"): each record its start-up 10 cycles, the rest per step: (200 - 12 * 10) / 3.
  r.record_cost_cycles = 10;
  r.step_regions = "load";
  ProtonTrace q = ImportProtonTrace(Synthetic(), {1.0});
  a = ApplyProtonRecordCost(r, q);
  EXPECT_DOUBLE_EQ(a.record_cost_cycles, 10);
  EXPECT_NEAR(a.start_cost_cycles.at(2), 80.0 / 3, 1e-9);  // "load" is region 2
  EXPECT_NEAR(q.trace.intervals[0].duration_ns(), 800 - 10, 1e-9);
  // Start costs given outright, by scope name: 10 a record, 25 a "load" enter.
  RecordCostRequest given;
  given.record_cost_cycles = 10;
  given.start_costs = "load=25";
  ProtonTrace g = ImportProtonTrace(Synthetic(), {1.0});
  a = ApplyProtonRecordCost(given, g);
  EXPECT_FALSE(a.fitted);
  EXPECT_DOUBLE_EQ(g.trace.intervals[0].raw_duration_ns() - g.trace.intervals[0].duration_ns(), 13 * 10 + 3 * 25);
  EXPECT_EQ(a.note, "record cost 10.0 cycles + 25.0 a start of load");
  // Bad requests: one line each.
  for (auto change : {+[](RecordCostRequest& x) { x.fit_region = "nope"; },
                      +[](RecordCostRequest& x) { x.record_cost_cycles = 0; },  // per step without a start-up cost
                      +[](RecordCostRequest& x) { x.fit_plain_ns = 5; },
                      +[](RecordCostRequest& x) { x.start_costs = "load"; },
                      +[](RecordCostRequest& x) { x.start_costs = "nope=4"; }}) {
    RecordCostRequest bad = r;
    change(bad);
    ProtonTrace b = ImportProtonTrace(Synthetic(), {1.0});
    EXPECT_THROW(ApplyProtonRecordCost(bad, b), strata::core::Error);
  }
  std::remove(path.c_str());
}

TEST(ProtonImport, ClockRateConvertsCyclesButKeepsBlockStarts) {
  ProtonImportOptions o;
  o.cycles_per_ns = 2.0;
  ProtonTrace p = ImportProtonTrace(Synthetic(), o);
  ASSERT_TRUE(p.ok);
  EXPECT_FALSE(p.trace.HasIssue(IssueKind::kNoClockRate));
  for (const Interval& iv : p.trace.intervals) {
    const Lane& l = p.trace.lanes[iv.lane];
    const double base = l.meta.block_linear == 1 ? 200 : 0;  // globaltimer ns: unchanged
    if (iv.region == 1) {
      EXPECT_DOUBLE_EQ(iv.start_ns, base);
      EXPECT_DOUBLE_EQ(iv.duration_ns(), 500);  // 1000 cycles at 2 cycles/ns
      EXPECT_EQ(iv.end_cycles - iv.start_cycles, 1000);
    }
    if (iv.region == 3 && iv.iteration == 1) EXPECT_DOUBLE_EQ(iv.start_ns, base + 250);  // 500 cycles in
  }
}

TEST(ProtonImport, LaneWithoutItsKernelScopeIsReportedAsOverwritten) {
  json doc = json::parse(Synthetic());
  json kept = json::array();
  for (const json& e : doc["traceEvents"])  // CTA 1 warp 1 lost its first records
    if (!(e["pid"] == "mm_kernel Core6 CTA1" && e["tid"] == "warp 1 (line 0)" && e["name"] == "kernel")) kept.push_back(e);
  doc["traceEvents"] = kept;
  ProtonTrace p = ImportProtonTrace(doc.dump());
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(p.trace.CountIssues(IssueKind::kOverflow), 1u);
  for (const Issue& is : p.trace.issues)
    if (is.kind == IssueKind::kOverflow) EXPECT_EQ(is.count, 1u);
  EXPECT_FALSE(ImportProtonTrace(Synthetic()).trace.HasIssue(IssueKind::kOverflow));
}

TEST(ProtonImport, BadInputIsOneIssue) {
  for (const std::string& text : {std::string("not json"), std::string("{}"), std::string("[1,2]"),
                                  std::string(R"({"traceEvents": []})"),
                                  std::string(R"({"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}]})")}) {
    ProtonTrace p = ImportProtonTrace(text);
    EXPECT_FALSE(p.ok) << text;
    ASSERT_EQ(p.trace.issues.size(), 1u) << text;
    EXPECT_TRUE(p.trace.issues[0].kind == IssueKind::kBadHeader || p.trace.issues[0].kind == IssueKind::kEmpty);
  }
  EXPECT_FALSE(ImportProtonFile("/nonexistent/x.chrome_trace").ok);
  // Gzip is read as the text it holds; a cut stream is one issue, not a parse of its bytes.
  const std::string zipped = strata::core::detail::Gzip(Synthetic());
  EXPECT_EQ(ImportProtonTrace(zipped).trace.intervals.size(), ImportProtonTrace(Synthetic()).trace.intervals.size());
  EXPECT_TRUE(ImportProtonTrace(zipped).ok);
  ProtonTrace cut = ImportProtonTrace(zipped.substr(0, zipped.size() / 2));
  EXPECT_FALSE(cut.ok);
  ASSERT_EQ(cut.trace.issues.size(), 1u);
  EXPECT_EQ(cut.trace.issues[0].message, "not a whole gzip stream");
  // Malformed events are skipped and counted, the rest imported.
  json doc = json::parse(Synthetic());
  doc["traceEvents"].push_back({{"ph", "X"}, {"name", "x"}, {"pid", "mm_kernel Core1 CTA9"}});
  ProtonTrace p = ImportProtonTrace(doc.dump());
  EXPECT_TRUE(p.ok);
  EXPECT_TRUE(p.trace.HasIssue(IssueKind::kTruncated));
}

TEST(ProtonImport, JsonCarriesSourceAndKernels) {
  ProtonTrace p = ImportProtonTrace(Synthetic());
  json j = json::parse(ProtonToJson(p));
  EXPECT_EQ(j["source"], "proton");
  EXPECT_EQ(j["kernels"][0], "mm_kernel");
  EXPECT_EQ(j["lanes"][0]["kernel"], "mm_kernel");
  EXPECT_EQ(j["intervals"].size(), 28u);
  EXPECT_TRUE(LooksLikeProtonTrace(Synthetic()));
  EXPECT_FALSE(LooksLikeProtonTrace(R"({"traceEvents": []})"));
}

TEST(ProtonImport, HatchetTable) {
  HatchetTable t = ImportProtonHatchet(
      R"([{"frame":{"name":"ROOT"},"metrics":{"cycles":10},"children":[{"frame":{"name":"k"},"metrics":{"cycles":7,"count":2},"children":[]}]},{"x":1}])");
  ASSERT_TRUE(t.error.empty());
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1].path, "ROOT/k");
  EXPECT_EQ(t.rows[1].depth, 1u);
  EXPECT_DOUBLE_EQ(t.rows[1].metrics.at("cycles"), 7);
  EXPECT_FALSE(ImportProtonHatchet("{}").error.empty());
}

TEST(ProtonImport, ProducerWarpsLackingConsumerScopesAreNotLosses) {
  // A warp-specialized kernel: warp 0 computes (kernel ⊃ dot × 3), warp 4 only loads. The
  // producer never runs "kernel": it is another role, not a lane that lost its records.
  json ev = json::array();
  for (int cta = 0; cta < 2; ++cta) {
    const std::string pid = "ws Core" + std::to_string(cta) + " CTA" + std::to_string(cta);
    ev.push_back(Ev("kernel", pid, 0, 0, 1000));
    for (int i = 0; i < 3; ++i) {
      ev.push_back(Ev("dot", pid, 0, 100 + 300 * i, 150));
      ev.push_back(Ev("load", pid, 4, 50 + 300 * i, 100));
    }
  }
  ProtonTrace p = ImportProtonTrace(json{{"traceEvents", ev}}.dump());
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.trace.lanes.size(), 4u);
  EXPECT_FALSE(p.trace.HasIssue(IssueKind::kOverflow)) << p.trace.issues.size();
}

TEST(ProtonImport, FullLanesWithUnequalLoopScopesAreReported) {
  // Proton's buffer holds 2^k records per warp and keeps the newest: with 16 iterations of
  // load + dot (64 records) in a 64-record buffer and a kernel scope around them, the kernel's
  // start and the first load are gone (Proton drops the orphaned ends). Every lane lost the
  // same records, so only the fill level and the unequal counts show it.
  json ev = json::array();
  for (int w = 0; w < 2; ++w) {
    const std::string pid = "mm Core0 CTA0";
    for (int i = 1; i < 16; ++i) ev.push_back(Ev("load", pid, w, 100 * i, 40));
    for (int i = 0; i < 16; ++i) ev.push_back(Ev("dot", pid, w, 100 * i + 50, 40));
  }
  ProtonTrace p = ImportProtonTrace(json{{"traceEvents", ev}}.dump());
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(p.trace.CountIssues(IssueKind::kOverflow), 1u);
  for (const Issue& is : p.trace.issues)
    if (is.kind == IssueKind::kOverflow) {
      EXPECT_EQ(is.count, 2u);
      EXPECT_NE(is.message.find("load 15 times, dot 16"), std::string::npos) << is.message;
    }
  // Not full: the same lanes with half the iterations are not reported.
  json half = json::array();
  for (const json& e : ev)
    if (e["ts"].get<double>() < 0.8) half.push_back(e);
  EXPECT_FALSE(ImportProtonTrace(json{{"traceEvents", half}}.dump()).trace.HasIssue(IssueKind::kOverflow));
}

// ---- H100, Triton 3.6 (test/fixtures/h100/proton/README.md).

// A fixture's trace at the H100's SM clock (1.98 cycles/ns).
ProtonTrace H100Trace(const std::string& file) {
  ProtonImportOptions o;
  o.cycles_per_ns = 1.98;
  return ImportProtonFile(std::string(STRATA_PROTON_FIXTURES) + "/" + file, o);
}

TEST(ProtonImportH100, PipelinedMatmulTrace) {
  ProtonTrace p = H100Trace("matmul_pipelined.chrome_trace.gz");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.kernels, std::vector<std::string>{"matmul_kernel"});
  // 16 CTAs x 8 warps; Proton's default buffer kept 128 of each warp's 132 records, so the
  // kernel scope (the first start) and the first iteration are gone from every lane.
  ASSERT_EQ(p.trace.lanes.size(), 128u);
  EXPECT_EQ(p.trace.intervals.size(), 7936u);
  // The trace does not say so; the full lanes and their unequal loop scopes do.
  ASSERT_EQ(p.trace.CountIssues(IssueKind::kOverflow), 1u);
  for (const Issue& is : p.trace.issues)
    if (is.kind == IssueKind::kOverflow) EXPECT_NE(is.message.find("dot 30 times, load 31"), std::string::npos) << is.message;
  std::set<std::string> names;
  for (const auto& [id, n] : p.names) names.insert(n.name);
  EXPECT_EQ(names, (std::set<std::string>{"load", "dot", "store"}));
  std::set<uint32_t> ctas, sms;
  for (const Lane& l : p.trace.lanes) {
    ctas.insert(l.meta.block_linear);
    sms.insert(l.meta.smid);
    EXPECT_LT(l.meta.group, 8u);
    EXPECT_LT(l.meta.smid, 132u);  // H100 SXM: 132 SMs
  }
  EXPECT_EQ(ctas.size(), 16u);
  std::map<uint16_t, std::pair<double, size_t>> by_region;
  for (const Interval& iv : p.trace.intervals) {
    EXPECT_GE(iv.duration_ns(), 0);
    EXPECT_GE(iv.start_ns, 0);
    auto& a = by_region[iv.region];
    a.first += iv.duration_ns();
    ++a.second;
  }
  // Scope means at 1.98 cycles/ns (docs/benchmarks.md): dot ~61 ns, load ~25 ns, store ~367 ns.
  for (const auto& [id, a] : by_region) {
    const double mean = a.first / double(a.second);
    if (p.names[id].name == "dot") EXPECT_NEAR(mean, 60.6, 3);
    if (p.names[id].name == "load") EXPECT_NEAR(mean, 24.9, 3);
    if (p.names[id].name == "store") EXPECT_NEAR(mean, 367.2, 10);
  }
}

TEST(ProtonImportH100, AttentionTraceNestsStagesInTheKernelScope) {
  ProtonTrace p = H100Trace("attention.chrome_trace.gz");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.kernels, std::vector<std::string>{"attn_fwd"});
  ASSERT_EQ(p.trace.lanes.size(), 64u);  // 16 CTAs x 4 warps
  EXPECT_TRUE(p.trace.issues.empty());
  std::map<std::string, size_t> count;
  for (const Interval& iv : p.trace.intervals) {
    const std::string& n = p.names[iv.region].name;
    ++count[n];
    if (n == "kernel") {
      EXPECT_EQ(iv.depth, 0u);
      EXPECT_NEAR(iv.duration_ns(), 18926, 500);
    } else {
      EXPECT_EQ(iv.depth, 1u) << n;
      ASSERT_GE(iv.parent, 0);
      EXPECT_EQ(p.names[p.trace.intervals[iv.parent].region].name, "kernel");
    }
    if (n == "qk") EXPECT_GE(iv.iteration, 0);
  }
  EXPECT_EQ(count["kernel"], 64u);
  for (const char* stage : {"load_k", "qk", "softmax", "load_v", "pv"}) EXPECT_EQ(count[stage], 64u * 16) << stage;
  // The same trace through the CLI's exports: JSON with the source, a Chrome trace.
  nlohmann::json j = nlohmann::json::parse(ProtonToJson(p));
  EXPECT_EQ(j["lanes"].size(), 64u);
  EXPECT_EQ(j["lanes"][0]["kernel"], "attn_fwd");
  EXPECT_FALSE(ToChromeTrace(p.trace, p.names).empty());
}

TEST(ProtonImportH100, WarpSpecializedGluonAttention) {
  // test/proton/attention_ws_gluon.py: 32 CTAs, a 4-warp consumer (warps 0-3: wait_kv, qk,
  // softmax, pv per KV block, store) and a 1-warp TMA producer (warp 6 in Proton's numbering:
  // wait_slot, issue_kv), meeting at a 2-deep mbarrier ring. 16 KV blocks per CTA.
  ProtonTrace p = H100Trace("attention_ws_gluon.chrome_trace.gz");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.kernels, std::vector<std::string>{"attn_fwd_ws_gluon"});
  ASSERT_EQ(p.trace.lanes.size(), 160u);
  std::map<uint32_t, std::set<std::string>> scopes_of_warp;
  std::map<std::string, size_t> count;
  std::map<std::string, double> total;
  for (const Interval& iv : p.trace.intervals) {
    const std::string& n = p.names[iv.region].name;
    scopes_of_warp[p.trace.lanes[iv.lane].meta.group].insert(n);
    ++count[n];
    total[n] += iv.duration_ns();
    EXPECT_EQ(iv.depth, 0u) << n;  // no kernel-level scope: the partitions' scopes are outermost
  }
  // The two partitions' scopes never meet on a warp.
  const std::set<std::string> consumer{"wait_kv", "qk", "softmax", "pv", "store"}, producer{"wait_slot", "issue_kv"};
  for (uint32_t w : {0u, 1u, 2u, 3u}) EXPECT_EQ(scopes_of_warp[w], consumer) << w;
  EXPECT_EQ(scopes_of_warp[6], producer);
  EXPECT_EQ(scopes_of_warp.size(), 5u);
  for (const char* n : {"qk", "softmax", "pv"}) EXPECT_EQ(count[n], 128u * 16) << n;
  EXPECT_EQ(count["wait_slot"], 32u * 16);
  // Proton's 128-record buffer held 128 of each consumer warp's 132 records (stderr said so:
  // record_log_3.txt): load_q and the first wait_kv are gone. The producer warps, which have no
  // "store", are not taken for lanes that lost it.
  EXPECT_EQ(count["wait_kv"], 128u * 15);
  EXPECT_EQ(count.count("load_q"), 0u);
  ASSERT_EQ(p.trace.CountIssues(IssueKind::kOverflow), 1u);
  for (const Issue& is : p.trace.issues)
    if (is.kind == IssueKind::kOverflow) {
      EXPECT_EQ(is.count, 128u) << is.message;
      EXPECT_NE(is.message.find("wait_kv 15 times, qk 16"), std::string::npos) << is.message;
    }
  // The producer waits for a free slot most of its time: the consumer (softmax above all) sets
  // the pace. Means at 1.98 cycles/ns: softmax 254 ns, qk 109, pv 96, wait_kv 58; wait_slot 482.
  EXPECT_NEAR(total["softmax"] / count["softmax"], 254.4, 5);
  EXPECT_NEAR(total["wait_slot"] / count["wait_slot"], 482.3, 10);
  EXPECT_GT(total["wait_slot"], 20 * total["issue_kv"]);
}

// The record cost of the warp-specialized Gluon attention on the H100 (2026-11-25, test/fixtures/
// h100/record_cost: run 2's traces at 1024 tokens, the first 2 CTAs): its loop scopes alone (the
// truth), and with sparse and dense scopes inside. The paced model fitted on run 1 (12.80 cycles a
// consumer record and iteration for both roles, 1018 / 815 cycles a consumer / producer loop: the
// bench's first fit) replays both within 2% of the loop-only spans; the per-record fit on the
// trace's own pair lands in the range the full run gave (21.7 dense); the product's paced fit.
TEST(ProtonImportH100, GluonAttentionRecordCost) {
  const std::string dir = std::string(STRATA_RECORD_COST_FIXTURES) + "/trimmed/";
  auto loop_means = [](const ProtonTrace& p) {
    std::map<std::string, double> sum, n;
    for (const Interval& iv : p.trace.intervals) {
      const std::string& name = p.names.at(iv.region).name;
      if (name != "consumer_loop" && name != "producer_loop") continue;
      sum[name] += iv.duration_ns() * 1.9798;
      n[name] += 1;
    }
    for (auto& [k, v] : sum) v /= n[k];
    return sum;
  };
  ProtonImportOptions o;
  o.cycles_per_ns = 1.9798;
  ProtonTrace truth = ImportProtonFile(dir + "loop_n1024_2ctas.chrome_trace", o);
  ASSERT_TRUE(truth.ok);
  const auto want = loop_means(truth);
  ASSERT_EQ(want.size(), 2u);
  for (const char* density : {"sparse", "dense"}) {
    const double per_iteration = 12.80 * (std::string(density) == "dense" ? 8 : 4);
    RecordCostRequest r;
    r.start_costs = "wait_kv=" + std::to_string(per_iteration) + ",wait_slot=" + std::to_string(per_iteration) +
                    ",consumer_loop=1018,producer_loop=815";
    ProtonTrace p = ImportProtonFile(dir + density + "_n1024_2ctas.chrome_trace", o);
    ASSERT_TRUE(p.ok) << density;
    const auto raw = loop_means(p);
    ApplyProtonRecordCost(r, p);
    const auto got = loop_means(p);
    for (const auto& [name, cycles] : want) {
      EXPECT_GT(raw.at(name) / cycles - 1, 0.09) << density << " " << name;  // raw: +10% to +16%
      EXPECT_NEAR(got.at(name) / cycles - 1, 0, 0.02) << density << " " << name;
    }
  }
  RecordCostRequest fit;
  fit.fit_reference = dir + "loop_n1024_2ctas.chrome_trace";
  fit.fit_region = "consumer_loop,producer_loop";
  ProtonTrace dense = ImportProtonFile(dir + "dense_n1024_2ctas.chrome_trace", o);
  AppliedRecordCost a = ApplyProtonRecordCost(fit, dense);
  EXPECT_EQ(a.fit.lanes, 10u);  // 2 CTAs x (4 consumer warps + 1 producer)
  EXPECT_GT(a.record_cost_cycles, 15);
  EXPECT_LT(a.record_cost_cycles, 30);
  // The paced fit in the product, on these traces alone (dense with sparse): near what it finds on
  // the full run 1 (12.46, 1050 / 847), and both densities replay to the truth.
  RecordCostRequest paced = fit;
  paced.step_regions = "wait_kv,wait_slot";
  for (const char* density : {"dense", "sparse"}) {
    const std::string other = std::string(density) == "dense" ? "sparse" : "dense";
    paced.fit_paced_with = dir + other + "_n1024_2ctas.chrome_trace";
    ProtonTrace p = ImportProtonFile(dir + density + "_n1024_2ctas.chrome_trace", o);
    AppliedRecordCost q = ApplyProtonRecordCost(paced, p);
    ASSERT_TRUE(q.fitted);
    EXPECT_NEAR(q.paced.pace_record_cycles, 12.46, 1.5) << density;
    EXPECT_NEAR(q.paced.region_constant_cycles.begin()->second, 1050, 250) << density;  // consumer_loop: region 1
    EXPECT_EQ(q.paced.lanes, 20u);
    EXPECT_DOUBLE_EQ(q.record_cost_cycles, 0);
    const auto got = loop_means(p);
    for (const auto& [name, cycles] : want) EXPECT_NEAR(got.at(name) / cycles - 1, 0, 0.01) << density << " " << name;
    EXPECT_NE(q.note.find("paced:"), std::string::npos) << q.note;
  }
  // Several references (launches of the loop-only kernel): their mean. The same launch twice is
  // that launch; a missing one fails the request.
  {
    RecordCostRequest twice = paced;
    twice.fit_paced_with = dir + "sparse_n1024_2ctas.chrome_trace";
    RecordCostRequest once = twice;
    twice.fit_reference = fit.fit_reference + "," + fit.fit_reference;
    ProtonTrace p1 = ImportProtonFile(dir + "dense_n1024_2ctas.chrome_trace", o);
    ProtonTrace p2 = ImportProtonFile(dir + "dense_n1024_2ctas.chrome_trace", o);
    AppliedRecordCost a1 = ApplyProtonRecordCost(once, p1), a2 = ApplyProtonRecordCost(twice, p2);
    EXPECT_DOUBLE_EQ(a1.paced.pace_record_cycles, a2.paced.pace_record_cycles);
    EXPECT_EQ(a1.paced.region_constant_cycles, a2.paced.region_constant_cycles);
    EXPECT_NE(a2.note.find("the mean of 2 references"), std::string::npos) << a2.note;
    twice.fit_reference = fit.fit_reference + "," + dir + "no_such_trace.chrome_trace";
    ProtonTrace p3 = ImportProtonFile(dir + "dense_n1024_2ctas.chrome_trace", o);
    EXPECT_THROW(ApplyProtonRecordCost(twice, p3), strata::core::Error);
  }
  // One density only: the constants and the pace cannot be told apart.
  paced.fit_paced_with = dir + "dense_n1024_2ctas.chrome_trace";
  ProtonTrace same = ImportProtonFile(dir + "dense_n1024_2ctas.chrome_trace", o);
  EXPECT_THROW(ApplyProtonRecordCost(paced, same), strata::core::Error);
  paced.step_regions = "";
  paced.fit_paced_with = dir + "sparse_n1024_2ctas.chrome_trace";
  EXPECT_THROW(ApplyProtonRecordCost(paced, same), strata::core::Error);
}

TEST(ProtonImportH100, Hatchet) {
  HatchetTable t = ImportProtonHatchet(Slurp(std::string(STRATA_PROTON_FIXTURES) + "/matmul_pipelined.hatchet"));
  ASSERT_TRUE(t.error.empty()) << t.error;
  std::map<std::string, double> cycles;
  for (const HatchetRow& r : t.rows)
    if (r.metrics.count("normalized_cycles")) cycles[r.path.substr(r.path.rfind('/') + 1)] = r.metrics.at("normalized_cycles");
  // Per warp over the 32 iterations: dot 3599 cycles (112/iteration, the trace's 61 ns at 1.98).
  EXPECT_NEAR(cycles["dot"], 3599.26, 0.01);
  EXPECT_NEAR(cycles["load"], 1529.69, 0.01);
}

TEST(ProtonImportH100, CliImportsAndRejects) {
  const std::string cli = STRATA_CLI;
  const std::string out = testing::TempDir() + "/proton_cli.json";
  const std::string cmd = cli + " regions --proton " + STRATA_PROTON_FIXTURES + "/attention.chrome_trace.gz --cycles-per-ns 1.98 --format json -o " + out + " 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  nlohmann::json j = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(j["source"], "proton");
  EXPECT_EQ(j["intervals"].size(), 64u * (1 + 1 + 5 * 16 + 1));
  const std::string bad = testing::TempDir() + "/not_proton.json";
  { std::ofstream(bad) << R"({"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}]})"; }
  const std::string err = testing::TempDir() + "/err.txt";
  EXPECT_NE(std::system((cli + " regions --proton " + bad + " 2>" + err).c_str()), 0);
  const std::string msg = Slurp(err);
  EXPECT_EQ(std::count(msg.begin(), msg.end(), '\n'), 1) << msg;
  EXPECT_NE(msg.find("not a Proton instrumentation trace"), std::string::npos) << msg;
}

}  // namespace
