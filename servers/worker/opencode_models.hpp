#pragma once
// runtime-c model discovery (spec "Runtime settings": models come from the installed catalog,
// only tool-call capable ones are offered, ids kept unchanged) and GET /opencode/models.
#include <optional>
#include <string>

#include "platform/opencode_catalog.hpp"
#include "worker_config.hpp"

namespace httplib {
struct Response;
}  // namespace httplib

namespace platform::worker {

class worker_registry;

struct opencode_discovery {
  opencode_catalog catalog;
  std::optional<std::string> default_model;  // the operator config's `model`, when it is offered
};

// `opencode models --verbose` in a private tree holding the operator's providers.
// Errors: `runtime_not_available`, `invalid_config`, `opencode_models_failed`.
result<opencode_discovery> discover_opencode_models(const config& cfg);

// GET /opencode/models: metadata only — id, name, provider, capabilities, variants, context
// limit, cost per MTok, status. Never keys, config contents or paths.
void handle_opencode_models(worker_registry& registry, httplib::Response& res);

}  // namespace platform::worker
