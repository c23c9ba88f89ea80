#pragma once
// platform-web's settings, all from the environment (docs/operations.md lists them).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "platform/error.hpp"

namespace platform::web {

enum class auth_mode { none, external };

struct config {
  std::string host = "127.0.0.1";
  int port = 8787;
  std::string data_dir = "./data";
  std::string database_url;      // PLATFORM_DATABASE_URL: PostgreSQL; empty = SQLite in data_dir
  std::string redis_url;         // PLATFORM_REDIS_URL: Redis; empty = in-process
  // PLATFORM_WORKER_URLS (comma-separated) or PLATFORM_WORKER_URL: the workers an app's turns
  // and agent runs are spread over (docs/operations.md, "Several workers"), each probed every
  // PLATFORM_WORKER_PROBE_MS when there are several.
  std::vector<std::string> worker_urls = {"http://127.0.0.1:8788"};
  std::chrono::milliseconds worker_probe{1000};
  // PLATFORM_WEB_URL: this server's origin as the worker reaches it (app-agent completion
  // callbacks). Empty: the local address a request came in on (local development).
  std::string web_url;
  // PLATFORM_PUBLIC_ORIGINS: comma-separated origins ("https://builder.example.com") the page
  // is served from through a reverse proxy, besides the Host header's own (cross-site guard).
  // In PLATFORM_AUTH_MODE=none their hosts are also answered besides the loopback names.
  std::vector<std::string> public_origins;
  // The live preview's origins (docs/http-api.md, "Live preview"): each app at
  // {appId}.{preview_domain} on this server's port (PLATFORM_PREVIEW_DOMAIN), or at
  // PLATFORM_PREVIEW_URL with {appId} in it (production: a registrable domain of its own).
  std::string preview_domain = "preview.localhost";
  std::string preview_url;
  std::chrono::milliseconds preview_token_ttl{2 * 3600 * 1000};
  auth_mode auth = auth_mode::none;
  bool production = false;       // PLATFORM_ENV=production
  std::string internal_token;    // INTERNAL_API_TOKEN
  // external auth: a JWT in `Authorization: Bearer` or the `platform_session` cookie.
  std::string jwt_issuer;
  std::string jwt_audience;
  std::string jwt_hs256_secret;  // PLATFORM_JWT_HS256_SECRET
  std::string jwt_rs256_public_key_pem;  // read from PLATFORM_JWT_PUBLIC_KEY_FILE
  std::size_t max_body_bytes = 8u << 20;
  std::chrono::milliseconds lease{30000};        // a streaming claim's lease
  std::chrono::milliseconds attach_wait{2000};   // resume rule 2: wait for an attachable stream
  std::chrono::milliseconds heartbeat{15000};    // SSE keep-alive comment interval
  // A chat stream's replay buffer (PLATFORM_REPLAY_MAX_BYTES, PLATFORM_REPLAY_MAX_EVENTS): past
  // it the oldest events make way, and late viewers start from the stream's replay head.
  std::size_t replay_max_bytes = 8u << 20;
  std::size_t replay_max_events = 65536;
  // How long a turn and its viewers wait out an unreachable cache store (a Redis restart)
  // before they give up with an error (PLATFORM_CACHE_OUTAGE_MS).
  std::chrono::milliseconds cache_outage_limit{30000};
  // Recovery of app agent runs whose worker lost them: how often running runs are checked
  // with their worker, and how long an unreachable worker is waited for.
  std::chrono::milliseconds agent_run_check{30000};                // PLATFORM_AGENT_RUN_CHECK_MS
  std::chrono::milliseconds routine_tick{10000};                   // PLATFORM_ROUTINE_TICK_MS: how often due routines are looked for
  std::string routine_clock_file;                                  // PLATFORM_ROUTINE_CLOCK_FILE: the routines' now (Unix ms) from a file (tests)
  std::chrono::milliseconds agent_run_unreachable_limit{300000};   // PLATFORM_AGENT_RUN_UNREACHABLE_MS
  std::string instance_id;       // this process, for logs
  // PLATFORM_CODEX_TRACE=1: one stderr line per turn start and end, stop and resume, with
  // ids, statuses, counts, sizes and timings only; never prompts, outputs or bodies.
  bool trace = false;
  // PLATFORM_DEMO_PROVIDER=1 (scripts/run.sh without a provider key): the worker's runtime-a
  // talks to the scripted demo provider, and the page says so.
  bool demo_provider = false;
  // HTTP actions (custom tools, app actions; docs/http-executor.md). The allow-list is the
  // operator's only exception to the address guard (PLATFORM_HTTP_ACTION_ALLOW); empty = none.
  std::string http_action_allow;
  std::size_t http_action_max_response_bytes = 2u << 20;   // PLATFORM_HTTP_ACTION_MAX_RESPONSE_BYTES
  std::chrono::milliseconds http_action_timeout{20000};    // PLATFORM_HTTP_ACTION_TIMEOUT_MS
  int http_action_max_redirects = 3;                       // PLATFORM_HTTP_ACTION_MAX_REDIRECTS
  std::string http_action_ca_file;                         // PLATFORM_HTTP_ACTION_CA_FILE: extra trusted CAs
  // Repair loop guard: one failure fingerprint starts at most this many builder repair runs
  // per window (PLATFORM_TOOL_REPAIR_MAX_RUNS, PLATFORM_TOOL_REPAIR_WINDOW_MS).
  int tool_repair_max_runs = 2;
  std::chrono::milliseconds tool_repair_window{3600000};
  // Version retention (docs/versions.md): after a builder turn's version, an app keeps its newest
  // PLATFORM_VERSION_KEEP versions (0: every one) and none older than
  // PLATFORM_VERSION_MAX_AGE_DAYS (0: no age limit), but always its latest and every released one.
  std::int64_t version_keep = 500;
  std::int64_t version_max_age_days = 0;
  // PLATFORM_UI_DIR: the built builder page (index.html, assets/). Unset: from the executable's
  // directory upwards, an installed `share/platform/ui` or a checkout's built `ui/dist`, else
  // the checkout's `ui/dist` to be built. Empty: none (the "not built" page).
  std::string ui_dir;
};

// Errors name the variable and what is wrong with it; secret values are never echoed.
// `exe_path` is the running executable (defaults found from it).
result<config> config_from_env(const std::string& exe_path);

}  // namespace platform::web
