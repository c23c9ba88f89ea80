#pragma once
// The worker's runtime registry (spec "Runtime settings"), shared by every request thread:
// the built-in runtimes plus runtime-c's models discovered from the installed opencode.
// Readers hold an immutable snapshot; a discovery swaps in a new one.
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "opencode_models.hpp"
#include "platform/runtime_registry.hpp"
#include "worker_config.hpp"

namespace platform::worker {

class worker_registry {
 public:
  worker_registry(const config& cfg, runtime_registry builtin);

  [[nodiscard]] std::shared_ptr<const runtime_registry> snapshot() const;

  // The registry to normalize a request's settings with ({"settings":{"settings":{...}}}).
  // A runtime-c request first discovers opencode's models when none were discovered yet, or
  // when its model is unknown and the last discovery is over a minute old (an operator added
  // a provider). Errors of the first discovery: `runtime_not_available`, `invalid_config`,
  // `opencode_models_failed`.
  result<std::shared_ptr<const runtime_registry>> for_body(const nlohmann::json& body);

  // runtime-c's catalog, at most a minute old; the registry's runtime-c models follow it.
  result<opencode_discovery> opencode_models();

 private:
  result<opencode_discovery> discover();

  const config& cfg_;
  mutable std::mutex mu_;
  std::shared_ptr<const runtime_registry> current_;
  std::mutex discovery_mu_;  // one `opencode models` at a time
  std::optional<opencode_discovery> discovered_;
  std::chrono::steady_clock::time_point discovered_at_;
};

}  // namespace platform::worker
