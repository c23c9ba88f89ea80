#pragma once
// platform-worker's settings, all from the environment (docs/operations.md).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/error.hpp"
#include "platform/sandbox_jail.hpp"

namespace platform::worker {

class provider_keys;
class agent_sandbox;

struct config {
  std::string host = "127.0.0.1";
  int port = 8788;
  bool production = false;
  std::string internal_token;          // INTERNAL_API_TOKEN
  std::string workspaces_dir = "./data/workspaces";
  // PLATFORM_APP_TEMPLATE_DIR: the app workspace template (scripts/setup-template.sh installs its
  // node_modules) that new builder workspaces start from; else templates/app-workspace found
  // from the executable upwards. Empty when none was found.
  std::string app_template_dir;
  std::string claude_path;             // PLATFORM_CLAUDE_PATH (else found next to the project)
  std::string codex_path;              // PLATFORM_CODEX_PATH
  std::string opencode_path;           // PLATFORM_OPENCODE_PATH
  // PLATFORM_OPENCODE_CONFIG: the operator's opencode.json(c) defining runtime-c's providers
  // and models (`{env:VAR}` for keys). Runs see only its provider and model keys.
  std::string opencode_config;
  // Local development keeps one codex app-server per app warm for 10 idle minutes;
  // PLATFORM_CODEX_APP_SERVER_WARM=0 turns it off, production never does it.
  bool codex_warm = true;
  // runtime-b's provider (docs/runtime-b.md "Provider and credentials"). PLATFORM_CODEX_BASE_URL:
  // a custom Responses API provider at that URL; else codex's built-in openai provider.
  std::string codex_base_url;
  std::string codex_key_var;     // CODEX_API_KEY, else OPENAI_API_KEY: the first one set
  std::string codex_key;         // its value
  // PLATFORM_CODEX_HOME (default $HOME/.codex): whose login (auth.json) codex uses when no key
  // variable is set.
  std::string codex_login_home;
  // runtime-a's CLI login (spec "Authentication" 7, used when no ANTHROPIC_API_KEY is set):
  // PLATFORM_CLAUDE_CONFIG_DIR (default $HOME/.claude) holds the operator's .credentials.json,
  // or CLAUDE_CODE_OAUTH_TOKEN a token from `claude setup-token`. Expiring logins are refreshed
  // at PLATFORM_CLAUDE_OAUTH_TOKEN_URL with Claude Code's client id (PLATFORM_CLAUDE_OAUTH_CLIENT_ID).
  std::string claude_login_dir;
  std::string claude_setup_token;
  std::string claude_oauth_token_url = "https://platform.claude.com/v1/oauth/token";
  std::string claude_oauth_client_id = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";
  // PLATFORM_DEMO_PROVIDER_URL (scripts/run.sh without a key): runtime-a's scripted demo
  // provider, used only while neither a key nor a login is there.
  std::string demo_provider_url;
  // The worker's own origin as runtimes reach it (the MCP broker): set once listening.
  std::string broker_base_url;
  // Provider credentials a runtime may receive (spec "Authentication" 7); nothing else of the
  // worker's environment reaches a runtime.
  std::vector<std::string> provider_env;
  // The same credentials plus keys entered on the onboarding screen (runtime-a's), kept in
  // $PLATFORM_DATA_DIR/provider-keys.json; shared by every copy of this config.
  std::shared_ptr<provider_keys> keys;
  std::chrono::milliseconds session_ttl{15 * 60 * 1000};  // PLATFORM_WORKER_SESSION_TTL_MS
  bool trace = false;                  // PLATFORM_CODEX_TRACE=1
  std::size_t max_agent_runs = 100;    // PLATFORM_WORKER_MAX_AGENT_RUNS
  std::chrono::milliseconds agent_run_retention{30 * 60 * 1000};  // PLATFORM_WORKER_AGENT_RUN_RETENTION_MS
  // PLATFORM_WEB_URL: the only origin completion callbacks go to (the internal token rides
  // on them). Unset: loopback origins only, for local development.
  std::string web_url;
  // How add_packages and restores run npm (docs/operations.md "App packages"): the shared npm
  // cache (PLATFORM_NPM_CACHE, else npm_config_cache, else $HOME/.npm at start: the cache the
  // setup scripts filled), --offline when PLATFORM_NPM_OFFLINE=1 (else --prefer-offline), and
  // the registry (npm_config_registry, passed on only when set).
  std::string npm_cache;
  bool npm_offline = false;
  std::string npm_registry;
  // The agent sandbox (docs/security.md): PLATFORM_SANDBOX `bwrap` (default) or `off` (a
  // development switch, refused in production); the jails' private dirs under
  // PLATFORM_SANDBOX_DIR (default $PLATFORM_DATA_DIR/sandboxes); their host uids and gids
  // PLATFORM_SANDBOX_UID_BASE + a hash of the app id modulo PLATFORM_SANDBOX_UID_COUNT.
  std::string sandbox_mode = "bwrap";
  std::string sandbox_dir;
  std::uint32_t sandbox_uid_base = 61000;
  std::uint32_t sandbox_uid_count = 1000;
  // PLATFORM_SANDBOX_TEST_OPEN: walls a test opens to see its check fail (refused in production).
  sandbox_openings sandbox_test_open;
  // PLATFORM_SANDBOX_INTERNET_ALLOW: addresses the internet door reaches although the guard
  // refuses them (ip_guard.hpp's allow-list syntax), for tests' stand-ins; refused in production.
  std::string sandbox_internet_allow;
  // Set at start once the sandbox works (main.cpp); shared by every copy of this config.
  std::shared_ptr<agent_sandbox> sandbox;
};

result<config> config_from_env(const std::string& exe_path);

}  // namespace platform::worker
