// The fuzzer's symbolizer: no LLVM, no file access (a hostile profile names arbitrary paths).
#include "symbolize/symbolizer.h"

namespace strata::core::detail {

namespace {
class NullSymbolizer final : public Symbolizer {
 public:
  SymbolInfo Symbolize(const std::string&, uint64_t) override { return {}; }
  std::string BuildId(const std::string&) override { return {}; }
  std::string Demangle(std::string_view name) override { return std::string(name); }
};
}  // namespace

std::unique_ptr<Symbolizer> MakeDefaultSymbolizer(const std::vector<std::string>&) { return std::make_unique<NullSymbolizer>(); }

}  // namespace strata::core::detail
