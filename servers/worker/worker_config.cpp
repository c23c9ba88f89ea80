#include "worker_config.hpp"

#include <filesystem>

#include "../common/env.hpp"
#include "../common/find_upwards.hpp"
#include "provider_keys.hpp"
#include "platform/api_error.hpp"

namespace platform::worker {
namespace {

using servers::env;
using servers::env_number;

// A pinned CLI that scripts/setup-runtimes.sh installs into <project>/runtimes, found from
// the executable's directory upwards; else `fallback`.
std::string find_runtime(const std::string& exe_path, const char* relative, const char* fallback) {
  std::string found = servers::find_upwards(exe_path, {std::string("runtimes/node_modules/") + relative});
  return found.empty() ? fallback : found;
}

}  // namespace

result<config> config_from_env(const std::string& exe_path) {
  config c;
  c.host = env("PLATFORM_WORKER_HOST", c.host);
  auto port = env_number("PLATFORM_WORKER_PORT", c.port, 0, 65535);
  if (!port) return tl::unexpected(port.error());
  c.port = static_cast<int>(*port);
  c.production = env("PLATFORM_ENV") == "production";
  c.internal_token = env("INTERNAL_API_TOKEN");
  if (c.production && c.internal_token.size() < 32) {
    return fail(api_error::invalid_config, "production mode needs INTERNAL_API_TOKEN of at least 32 bytes");
  }
  c.workspaces_dir = env("PLATFORM_WORKSPACES_DIR", env("PLATFORM_DATA_DIR", "./data") + "/workspaces");
  // The project's app workspace template, found from the executable's directory upwards.
  c.app_template_dir = env("PLATFORM_APP_TEMPLATE_DIR", servers::find_upwards(exe_path, {"templates/app-workspace"}, "package.json"));
  c.claude_path = env("PLATFORM_CLAUDE_PATH", find_runtime(exe_path, "@anthropic-ai/claude-code/bin/claude.exe", "/usr/local/bin/claude"));
  // The native binary, not the node wrapper: one process to signal and nothing left behind.
  c.codex_path = env("PLATFORM_CODEX_PATH",
                     find_runtime(exe_path, "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", "/usr/local/bin/codex"));
  c.opencode_path = env("PLATFORM_OPENCODE_PATH", find_runtime(exe_path, ".bin/opencode", "/usr/local/bin/opencode"));
  c.codex_warm = !c.production && env("PLATFORM_CODEX_APP_SERVER_WARM") != "0";
  c.codex_base_url = env("PLATFORM_CODEX_BASE_URL");
  while (!c.codex_base_url.empty() && c.codex_base_url.back() == '/') c.codex_base_url.pop_back();
  for (const char* name : {"CODEX_API_KEY", "OPENAI_API_KEY"}) {
    if (std::string v = env(name); !v.empty() && c.codex_key.empty()) {
      c.codex_key_var = name;
      c.codex_key = v;
    }
  }
  c.codex_login_home = env("PLATFORM_CODEX_HOME", env("HOME").empty() ? std::string() : env("HOME") + "/.codex");
  c.opencode_config = env("PLATFORM_OPENCODE_CONFIG");
  c.claude_login_dir = env("PLATFORM_CLAUDE_CONFIG_DIR", env("HOME").empty() ? std::string() : env("HOME") + "/.claude");
  c.claude_setup_token = env("CLAUDE_CODE_OAUTH_TOKEN");
  c.claude_oauth_token_url = env("PLATFORM_CLAUDE_OAUTH_TOKEN_URL", c.claude_oauth_token_url);
  c.claude_oauth_client_id = env("PLATFORM_CLAUDE_OAUTH_CLIENT_ID", c.claude_oauth_client_id);
  c.demo_provider_url = env("PLATFORM_DEMO_PROVIDER_URL");
  // runtime-c's catalog providers read their keys from these (opencode's models catalog).
  for (const char* name : {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_MAX_RETRIES", "OPENAI_API_KEY",
                           "OPENROUTER_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY",
                           "OPENCODE_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY"}) {
    if (std::string v = env(name); !v.empty()) c.provider_env.push_back(std::string(name) + "=" + v);
  }
  c.keys = std::make_shared<provider_keys>(c.provider_env, env("PLATFORM_DATA_DIR", "./data") + "/provider-keys.json");
  c.trace = env("PLATFORM_CODEX_TRACE") == "1";
  auto max_runs = env_number("PLATFORM_WORKER_MAX_AGENT_RUNS", static_cast<long long>(c.max_agent_runs), 1, 1000000);
  if (!max_runs) return tl::unexpected(max_runs.error());
  c.max_agent_runs = static_cast<std::size_t>(*max_runs);
  auto retention = env_number("PLATFORM_WORKER_AGENT_RUN_RETENTION_MS", c.agent_run_retention.count(), 1,
                              365LL * 24 * 3600 * 1000);
  if (!retention) return tl::unexpected(retention.error());
  c.agent_run_retention = std::chrono::milliseconds(*retention);
  auto ttl = env_number("PLATFORM_WORKER_SESSION_TTL_MS", c.session_ttl.count(), 1, 24LL * 3600 * 1000);
  if (!ttl) return tl::unexpected(ttl.error());
  c.session_ttl = std::chrono::milliseconds(*ttl);
  c.web_url = env("PLATFORM_WEB_URL");
  while (!c.web_url.empty() && c.web_url.back() == '/') c.web_url.pop_back();
  std::string npm_cache = env("PLATFORM_NPM_CACHE", env("npm_config_cache", env("NPM_CONFIG_CACHE")));
  if (npm_cache.empty() && !env("HOME").empty()) npm_cache = env("HOME") + "/.npm";
  if (npm_cache.empty()) npm_cache = env("PLATFORM_DATA_DIR", "./data") + "/npm-cache";
  c.npm_cache = std::filesystem::absolute(npm_cache).string();
  c.npm_offline = env("PLATFORM_NPM_OFFLINE") == "1";
  c.sandbox_mode = env("PLATFORM_SANDBOX", "bwrap");
  if (c.sandbox_mode != "bwrap" && c.sandbox_mode != "off") {
    return fail(api_error::invalid_config, "PLATFORM_SANDBOX is bwrap or off");
  }
  if (c.production && c.sandbox_mode == "off") {
    return fail(api_error::invalid_config, "PLATFORM_SANDBOX=off is a development switch; production runs every agent in its sandbox");
  }
  auto openings = parse_sandbox_openings(env("PLATFORM_SANDBOX_TEST_OPEN"));
  if (!openings) return tl::unexpected(openings.error());
  if (openings->any() && c.production) {
    return fail(api_error::invalid_config, "PLATFORM_SANDBOX_TEST_OPEN is for the sandbox's own tests, never production");
  }
  c.sandbox_test_open = *openings;
  c.sandbox_internet_allow = env("PLATFORM_SANDBOX_INTERNET_ALLOW");
  if (!c.sandbox_internet_allow.empty() && c.production) {
    return fail(api_error::invalid_config, "PLATFORM_SANDBOX_INTERNET_ALLOW is for tests' stand-ins, never production");
  }
  c.sandbox_dir = env("PLATFORM_SANDBOX_DIR", env("PLATFORM_DATA_DIR", "./data") + "/sandboxes");
  auto uid_base = env_number("PLATFORM_SANDBOX_UID_BASE", c.sandbox_uid_base, 1000, 0x7fff0000LL);
  if (!uid_base) return tl::unexpected(uid_base.error());
  auto uid_count = env_number("PLATFORM_SANDBOX_UID_COUNT", c.sandbox_uid_count, 1, 65536);
  if (!uid_count) return tl::unexpected(uid_count.error());
  c.sandbox_uid_base = static_cast<std::uint32_t>(*uid_base);
  c.sandbox_uid_count = static_cast<std::uint32_t>(*uid_count);
  c.npm_registry = env("npm_config_registry", env("NPM_CONFIG_REGISTRY"));
  return c;
}

}  // namespace platform::worker
