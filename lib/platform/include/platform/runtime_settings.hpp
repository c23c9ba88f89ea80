#pragma once
// Runtime settings normalization (spec "Runtime settings"): a requested runtimeId,
// runtimeModel and runtimeParams checked against the runtime registry, completed with the
// defaults, downgraded where the model lacks a capability, and turned into what the worker
// launches the runtime with. The JSON form of the result: runtime_registry_json.hpp.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/runtime_registry.hpp"

namespace platform {

// One automatic change to the requested settings.
struct settings_downgrade {
  std::string param;
  std::string from;
  std::string to;
  std::string reason;
};

struct normalized_settings {
  std::string runtime_id;
  std::string runtime_model;                        // resolved id (aliases replaced)
  std::map<std::string, std::string> runtime_params;  // complete: defaults filled
  std::vector<settings_downgrade> downgrades;
  // What these settings put on the runtime's command line. The worker adds the rest
  // (session, resume, permission and MCP flags, the prompt).
  std::vector<std::string> args;
  // Settings that travel in the runtime's protocol rather than on argv, as compact JSON.
  // runtime-b: {"thread":{model,sandbox},"turn":{model,effort,summary}} for thread/start
  // (and thread/resume) and turn/start; `{}` for the others.
  std::string protocol_params_json = "{}";
};

// Validates and completes runtime settings. `model` nullopt = the runtime's default model.
// Errors (message lists the allowed names or values): `unknown_runtime`, `unknown_model`,
// `unknown_param`, `invalid_param_value` (a value the runtime does not know),
// `unsupported_param_value` (known, but not available on this model and no fallback is).
result<normalized_settings> normalize_runtime_settings(const runtime_registry& registry,
                                                       std::string_view runtime_id,
                                                       std::optional<std::string> model,
                                                       const std::map<std::string, std::string>& params);

}  // namespace platform
