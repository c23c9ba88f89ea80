#pragma once
// platform-worker's settings, all from the environment (docs/operations.md).
#include <chrono>
#include <string>
#include <vector>

#include "platform/error.hpp"

namespace platform::worker {

struct config {
  std::string host = "127.0.0.1";
  int port = 8788;
  bool production = false;
  std::string internal_token;          // INTERNAL_API_TOKEN
  std::string workspaces_dir = "./data/workspaces";
  std::string claude_path;             // PLATFORM_CLAUDE_PATH (else found next to the project)
  // Provider credentials a runtime may receive (spec "Authentication" 7); nothing else of the
  // worker's environment reaches a runtime.
  std::vector<std::string> provider_env;
  std::chrono::minutes session_ttl{15};
  bool trace = false;                  // PLATFORM_CODEX_TRACE=1
  std::size_t max_agent_runs = 100;    // PLATFORM_WORKER_MAX_AGENT_RUNS
  std::chrono::milliseconds agent_run_retention{30 * 60 * 1000};  // PLATFORM_WORKER_AGENT_RUN_RETENTION_MS
  // PLATFORM_WEB_URL: the only origin completion callbacks go to (the internal token rides
  // on them). Unset: loopback origins only, for local development.
  std::string web_url;
};

result<config> config_from_env(const std::string& exe_path);

}  // namespace platform::worker
