// The thresholds one rule runs with: its defaults overridden by AnalyzeOptions::thresholds.
#pragma once

#include <map>
#include <string>

namespace strata::core::detail {

class RuleParams {
 public:
  RuleParams(std::string rule, const std::map<std::string, double>& all) : rule_(std::move(rule)), all_(all) {}
  // The value of "<rule>.<name>"; every parameter a rule reads has a default in the registry.
  double operator[](const std::string& name) const {
    auto it = all_.find(rule_ + "." + name);
    return it == all_.end() ? 0.0 : it->second;
  }

 private:
  std::string rule_;
  const std::map<std::string, double>& all_;
};

}  // namespace strata::core::detail
