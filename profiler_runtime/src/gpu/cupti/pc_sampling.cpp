#include "gpu/cupti/pc_sampling.h"

#include <cupti_pcsampling.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/log.h"
#include "gpu/cupti/cubin_store.h"
#include "gpu/cupti/cupti_loader.h"
#include "gpu/cupti/cupti_session.h"
#include "strata/cubin_trim/cubin_trim.h"

namespace strata::rt::gpu::pcs {
namespace {

constexpr size_t kPcsPerCall = 8192;          // PCs one GetData call can return
constexpr size_t kScratchBytes = 8u << 20;    // CUPTI's parsed-data buffer (~45k PCs)
constexpr uint32_t kSkip = 0xFFFFFFFFu;       // a CUPTI stall index we do not keep

// One CUpti_PCSamplingData with the arrays it points into.
struct DataBuffer {
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<CUpti_PCSamplingStallReason> reasons;
  void Allocate(size_t n_pcs, size_t n_reasons) {
    pcs.assign(n_pcs, CUpti_PCSamplingPCData{});
    reasons.assign(n_pcs * n_reasons, CUpti_PCSamplingStallReason{});
    for (size_t i = 0; i < n_pcs; ++i) {
      pcs[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs[i].stallReason = reasons.data() + i * n_reasons;
    }
    data = CUpti_PCSamplingData{};
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = n_pcs;
    data.pPcData = pcs.data();
  }
};

struct Context {
  CUcontext ctx = nullptr;
  bool enabled = false;
  std::unordered_map<uint32_t, uint32_t> stall_of_index;  // CUPTI index -> our stall id
  DataBuffer config;  // CUPTI's own buffer (filled at disable)
  DataBuffer get;     // what GetData fills
};

struct Key {
  uint64_t crc, pc;
  const std::string* function;
  uint32_t corr;
  bool operator==(const Key& o) const {
    return crc == o.crc && pc == o.pc && function == o.function && corr == o.corr;
  }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = k.crc * 0x9E3779B97F4A7C15ull ^ k.pc * 0xC2B2AE3D27D4EB4Full ^
                 reinterpret_cast<uintptr_t>(k.function) * 31 ^ k.corr;
    return size_t(h ^ (h >> 29));
  }
};

}  // namespace

// Everything PC sampling keeps for the process (one per CUPTI session); `mu` guards the rest.
struct State {
  std::mutex mu;  // everything below
  bool on = false;
  bool configured = false;
  CUpti_PCSamplingCollectionMode mode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  // 2^14 cycles: on the H100, CUPTI's default (about 2^11 there) took 1 M samples per 10 ms of
  // busy GPU and CUPTI's parsing of them doubled a GPU-bound run; 2^14 keeps ~1/8 of them at a
  // fraction of the cost (docs/benchmarks.md, "PC sampling period"). 0 = CUPTI's default.
  int period = 14;
  // CUPTI's hardware buffer, where the GPU writes raw samples for CUPTI's worker thread to
  // parse. CUPTI's default, 512 MB of host memory, was most of the 0.9 GB that PC sampling added
  // to ResNet-50 training (1.5 GB without); the memory goal is +10%. It is drained by CUPTI's
  // thread and at every synchronizing call, so it needs to hold only the samples between two
  // drains. If it fills, samples are lost: the status line says so and how often, and
  // bench/pc_sampling_scale.py compares against 512 MB (config pcs-hw512).
  size_t hw_buffer = size_t(64) << 20;  // STRATA_PC_SAMPLING_HW_BUFFER_MB in bytes
  size_t detail = 4096;                 // STRATA_PC_SAMPLING_DETAIL; 0: every pair
  PcDetailNote* detail_note = nullptr;  // what the final drain gave pc frames
  std::string* why = nullptr;  // first failure
  std::vector<std::unique_ptr<Context>>* ctxs = nullptr;
  std::vector<std::string>* stall_names = nullptr;
  std::unordered_map<std::string, uint32_t>* stall_ids = nullptr;
  std::unordered_set<std::string>* functions = nullptr;
  std::unordered_map<uint64_t, const std::string*>* function_of = nullptr;  // (crc, index) mixed
  const std::string* last_function = nullptr;
  uint64_t last_function_crc = 0;
  uint32_t last_function_index = 0;
  std::unordered_map<Key, size_t, KeyHash>* index = nullptr;
  std::vector<PcRecord>* records = nullptr;
  bool whole_cubins = false;  // STRATA_PC_SAMPLING_CUBINS=whole: no trimming
  CubinStore* cubins = nullptr;
  // What the profile carries of the code: modules, functions, bytes (and before trimming).
  uint64_t code_modules = 0, code_functions = 0, code_bytes = 0, code_loaded_bytes = 0;
  uint64_t untrimmed = 0;            // modules kept whole because trimming failed
  uint64_t missing = 0;              // sampled functions not found in their cubin's symbols
  std::string* trim_problem = nullptr;  // the first such failure
  uint64_t total = 0, dropped = 0, kept = 0, non_user = 0, calls = 0;
  uint64_t hw_full = 0;  // GetData calls that found the hardware buffer full (samples lost)
  int contexts_on = 0;
  // Where the time went (ns), CUPTI's part apart from ours: the cost against CUPTI's floor.
  uint64_t ns_get_data = 0, ns_crc = 0;                 // CUPTI
  uint64_t ns_process = 0, ns_put_aside = 0, ns_trim = 0;  // Strata
};

State* NewState() { return new State(); }

namespace {

uint64_t Now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

State& S() { return *CuptiSession::Get()->pc_sampling_state; }

void FailLocked(const std::string& why) {
  if (!S().why) S().why = new std::string(why);
}

// "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard"; the "_not_issued"
// twins count the same samples again (a subset), so they are not kept.
uint32_t StallIdLocked(const char* cupti_name) {
  std::string n(cupti_name);
  if (n.size() > 11 && n.compare(n.size() - 11, 11, "_not_issued") == 0) return kSkip;
  for (const char* prefix : {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_"}) {
    size_t len = strlen(prefix);
    if (n.compare(0, len, prefix) == 0) { n = n.substr(len); break; }
  }
  auto it = S().stall_ids->find(n);
  if (it != S().stall_ids->end()) return it->second;
  uint32_t id = uint32_t(S().stall_names->size());
  S().stall_names->push_back(n);
  S().stall_ids->emplace(n, id);
  return id;
}

// A full hardware buffer loses samples that no count reports (CUPTI hands over zeros for
// them): said on stderr once and in the status line with how often it happened.
void NoteHwFullLocked() {
  if (S().hw_full++ == 0)
    Log("PC sampling: CUPTI's hardware buffer (%zu MB) is full: samples are being lost; "
        "STRATA_PC_SAMPLING_HW_BUFFER_MB raises it, STRATA_PC_SAMPLING_PERIOD lowers the rate",
        S().hw_buffer >> 20);
}

// The interned name of a PC's function. Hashing the name string for each of the millions of
// PCs CUPTI hands over was most of Strata's own time in PC sampling (ResNet-50 training on the
// H100: 441 ms of 826 ms, on the program's thread); a function is identified by its cubin's CRC
// and its index in that cubin, and consecutive PCs mostly share one.
const std::string* FunctionOf(const CUpti_PCSamplingPCData& p) {
  if (!p.functionName) return &*S().functions->insert("<unknown>").first;
  uint64_t key = p.cubinCrc * 0x9E3779B97F4A7C15ull ^ p.functionIndex;
  if (S().last_function && S().last_function_crc == p.cubinCrc && S().last_function_index == p.functionIndex)
    return S().last_function;
  const std::string*& slot = (*S().function_of)[key];
  // Two (crc, index) pairs that mix to one key would share a name: checked, and looked up by
  // name when they differ.
  if (!slot || *slot != p.functionName) slot = &*S().functions->insert(p.functionName).first;
  S().last_function = slot;
  S().last_function_crc = p.cubinCrc;
  S().last_function_index = p.functionIndex;
  return slot;
}

void ProcessLocked(Context& c, const CUpti_PCSamplingData& d) {
  S().total += d.totalSamples;
  S().dropped += d.droppedSamples;
  S().non_user += d.nonUsrKernelsTotalSamples;
  if (d.hardwareBufferFull) NoteHwFullLocked();
  size_t n = d.totalNumPcs < d.collectNumPcs ? d.totalNumPcs : d.collectNumPcs;
  for (size_t i = 0; i < n; ++i) {
    const CUpti_PCSamplingPCData& p = d.pPcData[i];
    const std::string* fn = FunctionOf(p);
    uint32_t corr = S().mode == CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED ? p.correlationId : 0;
    Key k{p.cubinCrc, p.pcOffset, fn, corr};
    auto [it, fresh] = S().index->emplace(k, S().records->size());
    if (fresh) {
      PcRecord r;
      r.crc = p.cubinCrc;
      r.pc = p.pcOffset;
      r.function = fn;
      r.corr = corr;
      S().records->push_back(std::move(r));
    }
    PcRecord& r = (*S().records)[it->second];
    for (size_t s = 0; s < p.stallReasonCount; ++s) {
      auto m = c.stall_of_index.find(p.stallReason[s].pcSamplingStallReasonIndex);
      if (m == c.stall_of_index.end() || m->second == kSkip || !p.stallReason[s].samples) continue;
      if (r.counts.size() <= m->second) r.counts.resize(m->second + 1, 0);
      r.counts[m->second] += p.stallReason[s].samples;
      S().kept += p.stallReason[s].samples;
    }
  }
}

void CollectLocked(CuptiApi* api, Context& c) {
  if (!c.enabled || !api->PCSamplingGetData) return;
  for (int round = 0; round < 256; ++round) {  // bounded: each round drains up to kPcsPerCall
    CUpti_PCSamplingGetDataParams p{};
    p.size = CUpti_PCSamplingGetDataParamsSize;
    p.ctx = c.ctx;
    c.get.data.totalNumPcs = 0;
    c.get.data.remainingNumPcs = 0;
    p.pcSamplingData = &c.get.data;
    uint64_t t0 = Now();
    CUptiResult r = api->PCSamplingGetData(&p);
    uint64_t t1 = Now();
    S().ns_get_data += t1 - t0;
    ++S().calls;
    if (r != CUPTI_SUCCESS) {
      if (r == CUPTI_ERROR_OUT_OF_MEMORY) NoteHwFullLocked();
      else Log("PC sampling: cuptiPCSamplingGetData: %s", api->ResultText(r).c_str());
      return;
    }
    ProcessLocked(c, c.get.data);
    S().ns_process += Now() - t1;
    if (c.get.data.remainingNumPcs == 0) return;
  }
}

void DisableLocked(CuptiApi* api, Context& c) {
  if (!c.enabled) return;
  CollectLocked(api, c);
  CUpti_PCSamplingDisableParams p{};
  p.size = CUpti_PCSamplingDisableParamsSize;
  p.ctx = c.ctx;
  if (api->PCSamplingDisable) api->PCSamplingDisable(&p);
  c.enabled = false;
  // What CUPTI had not handed over yet lands in the configured buffer at disable.
  ProcessLocked(c, c.config.data);
  c.config.data.totalNumPcs = 0;
}

bool SetAttributes(CuptiApi* api, Context& c, std::vector<uint32_t>& indexes, std::string* why) {
  std::vector<CUpti_PCSamplingConfigurationInfo> info;
  auto add = [&](CUpti_PCSamplingConfigurationAttributeType t) -> CUpti_PCSamplingConfigurationInfo& {
    info.push_back(CUpti_PCSamplingConfigurationInfo{});
    info.back().attributeType = t;
    return info.back();
  };
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON).attributeData.stallReasonData = {indexes.size(), indexes.data()};
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE).attributeData.scratchBufferSizeData.scratchBufferSize = kScratchBytes;
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE).attributeData.collectionModeData.collectionMode = S().mode;
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL).attributeData.enableStartStopControlData.enableStartStopControl = 0;
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT).attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER).attributeData.samplingDataBufferData.samplingDataBuffer = &c.config.data;
  if (S().hw_buffer)  // 0: CUPTI's default
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE).attributeData.hardwareBufferSizeData.hardwareBufferSize = S().hw_buffer;
  if (S().period > 0)
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD).attributeData.samplingPeriodData.samplingPeriod = uint32_t(S().period);
  CUpti_PCSamplingConfigurationInfoParams p{};
  p.size = CUpti_PCSamplingConfigurationInfoParamsSize;
  p.ctx = c.ctx;
  p.numAttributes = info.size();
  p.pPCSamplingConfigurationInfo = info.data();
  CUptiResult r = api->PCSamplingSetConfigurationAttribute(&p);
  if (r == CUPTI_SUCCESS) return true;
  std::string bad;
  for (const auto& i : info)
    if (i.attributeStatus != CUPTI_SUCCESS) bad += " attribute " + std::to_string(int(i.attributeType)) + ": " + api->ResultText(i.attributeStatus) + ";";
  *why = "cuptiPCSamplingSetConfigurationAttribute: " + api->ResultText(r) + bad;
  return false;
}

}  // namespace

bool Configure() {
  std::lock_guard<std::mutex> lock(S().mu);
  if (S().configured) return S().on;
  S().configured = true;
  const char* v = getenv("STRATA_PC_SAMPLING");
  if (!v || !*v || strcmp(v, "0") == 0 || strcmp(v, "off") == 0) return false;
  if (strcmp(v, "serialized") == 0) S().mode = CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
  else if (strcmp(v, "continuous") == 0 || strcmp(v, "1") == 0) S().mode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  else { FailLocked(std::string("bad STRATA_PC_SAMPLING=") + v + " (continuous or serialized)"); return false; }
  if (const char* p = getenv("STRATA_PC_SAMPLING_PERIOD"); p && *p) {
    char* end = nullptr;
    long n = strtol(p, &end, 10);
    if (*end || (n != 0 && (n < 5 || n > 31))) {
      FailLocked(std::string("bad STRATA_PC_SAMPLING_PERIOD=") + p + " (5..31: 2^N cycles; 0: CUPTI's default)");
      return false;
    }
    S().period = int(n);
  }
  if (const char* h = getenv("STRATA_PC_SAMPLING_HW_BUFFER_MB"); h && *h) {
    char* end = nullptr;
    long mb = strtol(h, &end, 10);
    if (*end || mb < 0 || mb > 4096) {
      FailLocked(std::string("bad STRATA_PC_SAMPLING_HW_BUFFER_MB=") + h + " (1..4096; 0: CUPTI's default, 512)");
      return false;
    }
    S().hw_buffer = size_t(mb) << 20;
  }
  if (const char* d = getenv("STRATA_PC_SAMPLING_DETAIL"); d && *d) {
    char* end = nullptr;
    long n = strtol(d, &end, 10);
    if (*end || n < 0) {
      FailLocked(std::string("bad STRATA_PC_SAMPLING_DETAIL=") + d + " (pc frames kept, the heaviest first; 0: all)");
      return false;
    }
    S().detail = size_t(n);
  }
  if (const char* c = getenv("STRATA_PC_SAMPLING_CUBINS"); c && *c) {
    if (strcmp(c, "whole") == 0) S().whole_cubins = true;
    else if (strcmp(c, "sampled") != 0) {
      FailLocked(std::string("bad STRATA_PC_SAMPLING_CUBINS=") + c + " (sampled or whole)");
      return false;
    }
  }
  S().ctxs = new std::vector<std::unique_ptr<Context>>();
  S().stall_names = new std::vector<std::string>();
  S().stall_ids = new std::unordered_map<std::string, uint32_t>();
  S().functions = new std::unordered_set<std::string>();
  S().function_of = new std::unordered_map<uint64_t, const std::string*>();
  S().index = new std::unordered_map<Key, size_t, KeyHash>();
  S().records = new std::vector<PcRecord>();
  S().cubins = new CubinStore();
  S().on = true;
  return true;
}

bool On() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().on;
}

void OnContextCreated(CuptiApi* api, CUcontext ctx) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().on) return;
  if (!api->PCSamplingEnable || !api->PCSamplingGetData || !api->PCSamplingSetConfigurationAttribute ||
      !api->PCSamplingGetNumStallReasons || !api->PCSamplingGetStallReasons) {
    FailLocked("this CUPTI has no PC sampling API (" + api->path + ")");
    return;
  }
  auto c = std::make_unique<Context>();
  c->ctx = ctx;
  // Enable first: the stall-reason queries fail (INVALID_OPERATION) before it on the H100.
  CUpti_PCSamplingEnableParams ep{};
  ep.size = CUpti_PCSamplingEnableParamsSize;
  ep.ctx = ctx;
  CUptiResult r = api->PCSamplingEnable(&ep);
  if (r != CUPTI_SUCCESS) {
    FailLocked(r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                   ? "not permitted: " + api->ResultText(r) + " (profiling needs NVreg_RestrictProfilingToAdminUsers=0 or root)"
                   : "cuptiPCSamplingEnable: " + api->ResultText(r));
    return;
  }
  c->enabled = true;
  size_t n = 0;
  CUpti_PCSamplingGetNumStallReasonsParams np{};
  np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
  np.ctx = ctx;
  np.numStallReasons = &n;
  std::string why;
  std::vector<uint32_t> indexes;
  if ((r = api->PCSamplingGetNumStallReasons(&np)) != CUPTI_SUCCESS || n == 0) {
    why = "cuptiPCSamplingGetNumStallReasons: " + api->ResultText(r);
  } else {
    indexes.assign(n, 0);
    std::vector<std::vector<char>> names(n, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE, 0));
    std::vector<char*> name_ptrs(n);
    for (size_t i = 0; i < n; ++i) name_ptrs[i] = names[i].data();
    CUpti_PCSamplingGetStallReasonsParams sp{};
    sp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
    sp.ctx = ctx;
    sp.numStallReasons = n;
    sp.stallReasonIndex = indexes.data();
    sp.stallReasons = name_ptrs.data();
    if ((r = api->PCSamplingGetStallReasons(&sp)) != CUPTI_SUCCESS) {
      why = "cuptiPCSamplingGetStallReasons: " + api->ResultText(r);
    } else {
      for (size_t i = 0; i < n; ++i) {
        names[i].back() = 0;
        c->stall_of_index[indexes[i]] = StallIdLocked(names[i].data());
      }
      c->config.Allocate(kPcsPerCall, n);
      c->get.Allocate(kPcsPerCall, n);
      SetAttributes(api, *c, indexes, &why);
    }
  }
  if (!why.empty()) {
    CUpti_PCSamplingDisableParams dp{};
    dp.size = CUpti_PCSamplingDisableParamsSize;
    dp.ctx = ctx;
    if (api->PCSamplingDisable) api->PCSamplingDisable(&dp);
    FailLocked(why);
    return;
  }
  ++S().contexts_on;
  S().ctxs->push_back(std::move(c));
}

void OnModuleLoaded(CuptiApi* api, const void* cubin, size_t size) {
  if (!cubin || !size || !api->GetCubinCrc) return;
  CUpti_GetCubinCrcParams p{};
  p.size = sizeof(p);
  p.cubinSize = size;
  p.cubin = cubin;
  uint64_t t0 = Now();
  if (api->GetCubinCrc(&p) != CUPTI_SUCCESS) return;
  uint64_t t1 = Now();
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().on) return;
  S().cubins->Add(p.cubinCrc, cubin, size);
  S().ns_crc += t1 - t0;
  S().ns_put_aside += Now() - t1;
}

void OnContextDestroying(CuptiApi* api, CUcontext ctx) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().on) return;
  for (auto& c : *S().ctxs)
    if (c->ctx == ctx) DisableLocked(api, *c);
}

void Collect(CuptiApi* api) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().on) return;
  for (auto& c : *S().ctxs) CollectLocked(api, *c);
}

void FinishForExit(CuptiApi* api) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().on) return;
  for (auto& c : *S().ctxs) DisableLocked(api, *c);
}

std::vector<PcRecord> TakeRecords() {
  std::lock_guard<std::mutex> lock(S().mu);
  std::vector<PcRecord> out;
  if (!S().on) return out;
  out.swap(*S().records);
  S().index->clear();
  return out;
}

std::vector<std::string> StallNames() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().stall_names ? *S().stall_names : std::vector<std::string>();
}

size_t DetailBudget() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().detail;
}

void NoteDetail(const PcDetailNote& note) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().detail_note) S().detail_note = new PcDetailNote();
  *S().detail_note = note;
}

std::string SampledCode(uint64_t crc, const std::vector<std::string>& functions) {
  std::string image;
  bool whole = false;
  {
    std::lock_guard<std::mutex> lock(S().mu);
    if (!S().cubins) return "";
    image = S().cubins->Read(crc);
    whole = S().whole_cubins;
  }
  if (image.empty()) return image;
  // Trimmed outside the lock: CUPTI's callbacks on the program's threads need it meanwhile.
  cubin_trim::TrimmedCubin t;
  uint64_t t0 = Now();
  if (!whole) t = cubin_trim::TrimCubin(image, functions);
  uint64_t t1 = Now();
  std::lock_guard<std::mutex> lock(S().mu);
  ++S().code_modules;
  S().code_loaded_bytes += image.size();
  S().ns_trim += t1 - t0;
  if (!whole && t.error.empty()) {
    S().code_functions += t.functions_kept;
    S().missing += t.functions_missing;
    S().code_bytes += t.bytes.size();
    return std::move(t.bytes);
  }
  if (!whole) {
    ++S().untrimmed;
    if (!S().trim_problem) S().trim_problem = new std::string(t.error);
  }
  S().code_functions += functions.size();
  S().code_bytes += image.size();
  return image;
}

std::string StatusLine() {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().configured || (!S().on && !S().why)) return "off (strata record --pc-sampling)";
  if (S().why && S().contexts_on == 0) return "not collected: " + *S().why;
  char buf[512];
  snprintf(buf, sizeof(buf),
           "collected: %s mode, period %s%s; %llu samples kept (%llu total by CUPTI, %llu dropped, %llu in "
           "non-user kernels) in %zu cubins loaded (%.1f MB), %d contexts, %llu GetData calls",
           S().mode == CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED ? "serialized" : "continuous",
           S().period > 0 ? ("2^" + std::to_string(S().period) + " cycles").c_str() : "CUPTI default",
           S().hw_buffer ? (", hardware buffer " + std::to_string(S().hw_buffer >> 20) + " MB").c_str() : ", hardware buffer CUPTI's",
           (unsigned long long)S().kept, (unsigned long long)S().total, (unsigned long long)S().dropped,
           (unsigned long long)S().non_user, S().cubins->count(), double(S().cubins->bytes()) / 1e6, S().contexts_on, (unsigned long long)S().calls);
  std::string s = buf;
  if (S().hw_full)
    s += "; samples lost: the hardware buffer was full at " + std::to_string(S().hw_full) +
         " GetData calls (uncounted; STRATA_PC_SAMPLING_HW_BUFFER_MB)";
  if (const PcDetailNote* d = S().detail_note; d && d->pairs) {
    // Instructions × kernel call paths: the heaviest have pc frames, the rest count on their kernel.
    snprintf(buf, sizeof(buf),
             "; pc frames: %zu of %zu (kernel path, instruction) pairs, %.1f%% of samples; %zu of %zu instructions, "
             "holding %.1f%% of samples%s",
             d->pairs_itemized, d->pairs, d->samples > 0 ? 100.0 * d->samples_itemized / d->samples : 100.0,
             d->sites_itemized, d->sites, d->samples > 0 ? 100.0 * d->site_samples_itemized / d->samples : 100.0,
             d->pairs_itemized < d->pairs ? " (the rest counted on their kernel nodes; STRATA_PC_SAMPLING_DETAIL)" : "");
    s += buf;
  }
  if (S().code_modules) {
    // Functions: the sampled ones and their callees (or, kept whole, the sampled ones).
    snprintf(buf, sizeof(buf), "; code kept: %llu functions of %llu cubins%s, %.2f MB of %.1f MB",
             (unsigned long long)S().code_functions, (unsigned long long)S().code_modules,
             S().whole_cubins ? " (whole cubins: STRATA_PC_SAMPLING_CUBINS=whole)" : "",
             double(S().code_bytes) / 1e6, double(S().code_loaded_bytes) / 1e6);
    s += buf;
    if (S().untrimmed) s += "; " + std::to_string(S().untrimmed) + " kept whole (" + *S().trim_problem + ")";
    if (S().missing) s += "; " + std::to_string(S().missing) + " sampled functions not in their cubin's symbols (no code kept for them)";
  }
  snprintf(buf, sizeof(buf),
           "; time in CUPTI: GetData %.0f ms, cubin CRCs %.0f ms; in Strata: samples %.0f ms, module images "
           "put aside %.0f ms, code trimmed %.0f ms",
           S().ns_get_data / 1e6, S().ns_crc / 1e6, S().ns_process / 1e6, S().ns_put_aside / 1e6, S().ns_trim / 1e6);
  s += buf;
  if (!S().cubins->Problem().empty()) s += "; " + S().cubins->Problem();
  if (S().why) s += "; " + *S().why;
  return s;
}

}  // namespace strata::rt::gpu::pcs
