#pragma once
// The core's "Ready" (platform/runtime_readiness.hpp) from what this worker holds: its keys
// (the environment's and those entered on Model providers), the operator's logins, runtime-c's
// providers. Nothing here starts a CLI or calls a model, so a turn is refused within
// milliseconds and the picker can ask on every page load.
#include <string>

#include "platform/runtime_readiness.hpp"
#include "worker_config.hpp"

namespace httplib {
struct Response;
}  // namespace httplib

namespace platform::worker {

class worker_registry;

runtime_readiness runtime_ready(const config& cfg, const std::string& runtime_id, const std::string& model);

// runtime-b's key: the worker's environment first, else one entered on Model providers.
std::string codex_key_now(const config& cfg);

// GET /runtime-readiness: {"runtimes": {"<id>": {"ready", "reason"?}}}; runtime-c's with
// "models": {"<model>": "<reason>"} for each listed model that is not ready, and {} before its
// models are discovered. Booleans and sentences only, never a key.
void handle_runtime_readiness(const config& cfg, worker_registry& registry, httplib::Response& res);

}  // namespace platform::worker
