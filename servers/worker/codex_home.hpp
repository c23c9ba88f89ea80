#pragma once
// The CODEX_HOME a runtime-b process gets: a temp directory of its own with a generated
// config.toml (provider, hermetic switches, approvals, MCP broker servers, app-agent tool
// restrictions), the restored thread rollout, and the login it may use. Nothing of the
// worker's own state (tokens, cookies, prompts) is written here; docs/runtime-b.md has the why.
#include <optional>
#include <string>
#include <vector>

#include "platform/error.hpp"
#include "runtime_turn.hpp"
#include "worker_config.hpp"

namespace platform::worker {

// The variable the broker token rides in (per-turn processes only).
inline constexpr const char* codex_broker_token_var = "PLATFORM_BROKER_TOKEN";

struct codex_home_options {
  // App-agent runs: no shell, no apply_patch, no image/goal tools; web search only when
  // `web_search`. `model_catalog_json` is the catalog that removes shell and apply_patch.
  bool app_agent = false;
  bool web_search = true;
  std::string model_catalog_json;
  // Broker servers written as [mcp_servers.<name>] with the token read from
  // PLATFORM_BROKER_TOKEN. Warm processes leave this empty: their MCP servers travel per
  // thread (mcp_thread_config), since a process's environment cannot change between turns.
  std::optional<broker_access> broker;
  // The directory to make the home in (a jail's HOME); empty: a fresh temp directory.
  std::string home;
};

// A fresh temp CODEX_HOME (0700) holding config.toml and, for a worker without a key, a copy of
// the operator's auth.json.
result<std::string> make_codex_home(const config& cfg, const codex_home_options& o);

// The whole environment of a codex process: PATH, HOME and CODEX_HOME (the temp home), LANG, the
// custom provider's key variable, and the broker token when `broker_token` is not empty.
std::vector<std::string> codex_env(const config& cfg, const std::string& home, const std::string& broker_token);

// True when codex must be logged in over JSON-RPC (account/login/start) with the key: the
// built-in openai provider ignores key variables.
bool codex_needs_key_login(const config& cfg);

// `{"mcp_servers": {...}}` for thread/start or thread/resume `config`: the broker servers with
// the turn's token as an Authorization header (kept in codex's memory only, never on disk).
std::string mcp_thread_config(const broker_access& broker);

// The model's entry of codex's bundled model catalog with the shell and apply_patch tools
// removed, as a catalog document (cached per model; `codex debug models --bundled` once).
result<std::string> restricted_model_catalog(const config& cfg, const std::string& model);

// Thread ids as codex makes them (UUIDs); anything else is never used in a path.
bool safe_thread_id(const std::string& id);

// Writes a ProviderSessionState rollout where thread/resume finds it (unless the home already
// holds that thread). False when the state cannot be used.
bool restore_rollout(const std::string& home, const provider_session_state& s);

// The thread's rollout JSONL in `home`, if there is one.
std::optional<std::string> read_rollout(const std::string& home, const std::string& thread_id);

// A login codex refreshed during the turn goes back to the operator's CODEX_HOME, so the
// rotated refresh token is not lost.
void save_refreshed_login(const config& cfg, const std::string& home);

}  // namespace platform::worker
