// The operand table `strata trace` hands its cuda-gdb script: per instruction offset, the
// registers it reads, its guard and the memory a load reads, from nvdisasm's listing (the
// debugger's own disassembly drops the commas before `[`, so its text cannot be split reliably).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include "../gpu_code/nvdisasm.h"
#include "strata/core/api.h"
#include "strata/core/sass_deps.h"

namespace strata::core {

std::string TraceOperandTable(std::string_view cubin, const std::string& function, const std::string& nvdisasm) {
  const std::string tool = nvdisasm.empty() ? gpu::FindNvdisasm() : nvdisasm;
  if (tool.empty()) throw Error("no nvdisasm (set STRATA_NVDISASM or put it on PATH)");
  char path[] = "/tmp/strata-trace-cubin-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw Error("cannot write a temporary cubin");
  const bool written = write(fd, cubin.data(), cubin.size()) == ssize_t(cubin.size());
  close(fd);
  gpu::ToolRun run;
  if (written) run = gpu::RunNvdisasm(tool, path);
  unlink(path);
  if (!written) throw Error("cannot write a temporary cubin");
  if (!run.ok) throw Error("nvdisasm: " + run.error);
  SassDependencyGraph g = BuildSassDependencyGraph(cubin, run.out, function);
  nlohmann::json table = nlohmann::json::object();
  for (const SassInstr& i : g.instructions) {
    nlohmann::json uses = nlohmann::json::array();
    for (const SassReg& r : i.uses) uses.push_back(SassRegName(r));
    nlohmann::json defs = nlohmann::json::array();
    for (const SassReg& r : i.defs) defs.push_back(SassRegName(r));
    nlohmann::json j = {{"uses", uses}, {"defs", defs}, {"text", i.text}};
    if (i.guard) j["guard"] = SassRegName(*i.guard), j["negated"] = i.guard_negated;
    else if (i.text.rfind("@!PT ", 0) == 0 || i.text.rfind("@!UPT ", 0) == 0) j["guard"] = "PT", j["negated"] = true;  // never runs
    if (i.memory) {
      const SassMemoryOperand& m = *i.memory;
      j["mem"] = {{"space", m.space}, {"base", m.base ? SassRegName(*m.base) : ""}, {"wide", m.wide},
                  {"index", m.index ? SassRegName(*m.index) : ""}, {"imm", m.imm}, {"bytes", m.bytes}};
    }
    table[std::to_string(i.offset)] = std::move(j);
  }
  return table.dump();
}

}  // namespace strata::core
