#pragma once
// Private to libplatform: the registry's rules for a parameter value on a model (what the model
// offers, the fallback chain, the effective default) and the lists error messages name. Shared
// by the registry (runtime_registry.cpp, where they live), settings normalization
// (runtime_settings.cpp), the registry's JSON form and the opencode catalog.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/runtime_registry.hpp"

namespace platform::runtime_rules {

using strings = std::vector<std::string>;

inline bool contains(const strings& list, std::string_view v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// "a, b, c", or "(none)".
std::string join(const strings& list);

strings runtime_ids(const runtime_registry& r);

// The values of `p` available on `m`: the model's own list, else every value the runtime knows.
const strings& allowed_values(const runtime_param& p, const runtime_model& m);

// Follows the fallback chain from `value` to a value the model supports. `skipped` receives
// each unavailable value passed over. Error `unsupported_param_value` when the chain ends
// (or loops) before one.
result<std::string> resolve_value(const runtime_info& rt, const runtime_param& p, const runtime_model& m,
                                  std::string value, strings& skipped);

// The model's default for `p` (its own, else the runtime's), resolved as above.
result<std::string> effective_default(const runtime_info& rt, const runtime_param& p, const runtime_model& m);

}  // namespace platform::runtime_rules
