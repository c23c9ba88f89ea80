#include "worker_config.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>

namespace platform::worker {
namespace {

std::string env(const char* name, std::string fallback = {}) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// The pinned CLI that scripts/setup-runtimes.sh installs into <project>/runtimes.
std::string find_claude(const std::string& exe_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::path dir = fs::path(exe_path).parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path()) {
    fs::path candidate = dir / "runtimes/node_modules/@anthropic-ai/claude-code/bin/claude.exe";
    if (fs::exists(candidate, ec)) return candidate.string();
  }
  return "/usr/local/bin/claude";
}

}  // namespace

result<config> config_from_env(const std::string& exe_path) {
  config c;
  c.host = env("PLATFORM_WORKER_HOST", c.host);
  std::string port = env("PLATFORM_WORKER_PORT", "8788");
  auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), c.port);
  if (ec != std::errc() || p != port.data() + port.size() || c.port < 0 || c.port > 65535) {
    return fail("invalid_config", "PLATFORM_WORKER_PORT must be a port number");
  }
  c.production = env("PLATFORM_ENV") == "production";
  c.internal_token = env("INTERNAL_API_TOKEN");
  if (c.production && c.internal_token.size() < 32) {
    return fail("invalid_config", "production mode needs INTERNAL_API_TOKEN of at least 32 bytes");
  }
  c.workspaces_dir = env("PLATFORM_WORKSPACES_DIR", env("PLATFORM_DATA_DIR", "./data") + "/workspaces");
  c.claude_path = env("PLATFORM_CLAUDE_PATH", find_claude(exe_path));
  for (const char* name : {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_MAX_RETRIES"}) {
    if (std::string v = env(name); !v.empty()) c.provider_env.push_back(std::string(name) + "=" + v);
  }
  c.trace = env("PLATFORM_CODEX_TRACE") == "1";
  for (auto [name, target] : {std::pair{"PLATFORM_WORKER_MAX_AGENT_RUNS", &c.max_agent_runs}}) {
    std::string v = env(name);
    if (v.empty()) continue;
    auto [end, err] = std::from_chars(v.data(), v.data() + v.size(), *target);
    if (err != std::errc() || end != v.data() + v.size() || *target == 0) {
      return fail("invalid_config", std::string(name) + " must be a positive integer");
    }
  }
  if (std::string v = env("PLATFORM_WORKER_AGENT_RUN_RETENTION_MS"); !v.empty()) {
    long long ms = 0;
    auto [end, err] = std::from_chars(v.data(), v.data() + v.size(), ms);
    if (err != std::errc() || end != v.data() + v.size() || ms <= 0) {
      return fail("invalid_config", "PLATFORM_WORKER_AGENT_RUN_RETENTION_MS must be a positive integer");
    }
    c.agent_run_retention = std::chrono::milliseconds(ms);
  }
  c.web_url = env("PLATFORM_WEB_URL");
  while (!c.web_url.empty() && c.web_url.back() == '/') c.web_url.pop_back();
  return c;
}

}  // namespace platform::worker
