#include "web_config.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "../common/env.hpp"
#include "../common/find_upwards.hpp"
#include "platform/api_error.hpp"
#include "platform/ip_guard.hpp"
#include "platform/url.hpp"

namespace platform::web {

using servers::env;
using servers::env_number;

namespace {

// HTTP actions and the repair loop guard; a bad allow-list refuses to start rather than
// silently guarding less (or more) than the operator wrote.
result<void> http_action_settings(config& c) {
  c.http_action_allow = env("PLATFORM_HTTP_ACTION_ALLOW");
  if (auto allow = address_allow_list::parse(c.http_action_allow); !allow) {
    return fail(api_error::invalid_config, "PLATFORM_HTTP_ACTION_ALLOW: " + allow.error().message);
  }
  auto bytes = env_number("PLATFORM_HTTP_ACTION_MAX_RESPONSE_BYTES", static_cast<long long>(c.http_action_max_response_bytes),
                          1024, 1LL << 30);
  if (!bytes) return tl::unexpected(bytes.error());
  c.http_action_max_response_bytes = static_cast<std::size_t>(*bytes);
  auto timeout = env_number("PLATFORM_HTTP_ACTION_TIMEOUT_MS", c.http_action_timeout.count(), 100, 600000);
  if (!timeout) return tl::unexpected(timeout.error());
  c.http_action_timeout = std::chrono::milliseconds(*timeout);
  auto redirects = env_number("PLATFORM_HTTP_ACTION_MAX_REDIRECTS", c.http_action_max_redirects, 0, 10);
  if (!redirects) return tl::unexpected(redirects.error());
  c.http_action_max_redirects = static_cast<int>(*redirects);
  c.http_action_ca_file = env("PLATFORM_HTTP_ACTION_CA_FILE");
  if (!c.http_action_ca_file.empty() && !std::ifstream(c.http_action_ca_file)) {
    return fail(api_error::invalid_config, "PLATFORM_HTTP_ACTION_CA_FILE cannot be read");
  }
  auto runs = env_number("PLATFORM_TOOL_REPAIR_MAX_RUNS", c.tool_repair_max_runs, 0, 100);
  if (!runs) return tl::unexpected(runs.error());
  c.tool_repair_max_runs = static_cast<int>(*runs);
  auto window = env_number("PLATFORM_TOOL_REPAIR_WINDOW_MS", c.tool_repair_window.count(), 1000, 30LL * 86400000);
  if (!window) return tl::unexpected(window.error());
  c.tool_repair_window = std::chrono::milliseconds(*window);
  return {};
}

// A comma-separated list of origins ("https://a.example, http://10.0.0.5:8788/"): spaces and
// trailing slashes trimmed, empty items skipped; `refusal` when one is not an origin.
result<std::vector<std::string>> origin_list(const std::string& text, std::string_view refusal) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = std::min(text.find(',', pos), text.size());
    std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    while (!item.empty() && item.back() == '/') item.pop_back();
    if (item.empty()) continue;
    auto u = parse_url(item);
    if (!u || u->origin() != item) return fail(api_error::invalid_config, std::string(refusal));
    out.push_back(std::move(item));
  }
  return out;
}

// The builder page when PLATFORM_UI_DIR is unset: an installed one (<prefix>/bin/platform-web
// finds <prefix>/share/platform/ui) or a checkout's built ui/dist, whichever is nearer; else
// the checkout's ui/dist that scripts/setup-ui.sh builds (read per request, so a page built
// after the start is served without a restart).
std::string default_ui_dir(const std::string& exe_path) {
  std::string built = servers::find_upwards(exe_path, {"share/platform/ui", "ui/dist"}, "index.html");
  if (!built.empty()) return built;
  std::string ui = servers::find_upwards(exe_path, {"ui"}, "package.json");
  return ui.empty() ? ui : ui + "/dist";
}

}  // namespace

result<config> config_from_env(const std::string& exe_path) {
  config c;
  c.host = env("PLATFORM_WEB_HOST", c.host);
  auto port = env_number("PLATFORM_WEB_PORT", c.port, 0, 65535);
  if (!port) return tl::unexpected(port.error());
  c.port = static_cast<int>(*port);
  c.data_dir = env("PLATFORM_DATA_DIR", c.data_dir);
  c.database_url = env("PLATFORM_DATABASE_URL");
  c.redis_url = env("PLATFORM_REDIS_URL");
  auto workers = origin_list(env("PLATFORM_WORKER_URLS", env("PLATFORM_WORKER_URL", c.worker_urls.front())),
                             "PLATFORM_WORKER_URLS must list worker origins such as http://10.0.0.5:8788, separated by commas");
  if (!workers) return tl::unexpected(workers.error());
  c.worker_urls = std::move(*workers);
  for (auto it = c.worker_urls.begin(); it != c.worker_urls.end(); ++it) {
    if (std::find(c.worker_urls.begin(), it, *it) != it) return fail(api_error::invalid_config, "PLATFORM_WORKER_URLS lists " + *it + " twice");
  }
  if (c.worker_urls.empty()) return fail(api_error::invalid_config, "PLATFORM_WORKER_URLS names no worker");
  auto probe = env_number("PLATFORM_WORKER_PROBE_MS", c.worker_probe.count(), 50, 600000);
  if (!probe) return tl::unexpected(probe.error());
  c.worker_probe = std::chrono::milliseconds(*probe);
  c.web_url = env("PLATFORM_WEB_URL");
  while (!c.web_url.empty() && c.web_url.back() == '/') c.web_url.pop_back();
  auto origins = origin_list(env("PLATFORM_PUBLIC_ORIGINS"),
                             "PLATFORM_PUBLIC_ORIGINS must list origins such as https://builder.example.com "
                             "(scheme, lower-case host and optional port, no path), separated by commas");
  if (!origins) return tl::unexpected(origins.error());
  c.public_origins = std::move(*origins);
  c.production = env("PLATFORM_ENV") == "production";
  c.internal_token = env("INTERNAL_API_TOKEN");
  c.trace = env("PLATFORM_CODEX_TRACE") == "1";
  c.demo_provider = env("PLATFORM_DEMO_PROVIDER") == "1";
  c.preview_domain = env("PLATFORM_PREVIEW_DOMAIN", c.preview_domain);
  c.preview_url = env("PLATFORM_PREVIEW_URL");
  if (!c.preview_url.empty() && c.preview_url.find("{appId}") == std::string::npos) {
    return fail(api_error::invalid_config, "PLATFORM_PREVIEW_URL must contain {appId} (e.g. https://{appId}.preview.example.com)");
  }
  std::string mode = env("PLATFORM_AUTH_MODE", "none");
  if (mode == "none") c.auth = auth_mode::none;
  else if (mode == "external") c.auth = auth_mode::external;
  else return fail(api_error::invalid_config, "PLATFORM_AUTH_MODE must be none or external");
  if (c.production && c.internal_token.size() < 32) {
    return fail(api_error::invalid_config, "production mode needs INTERNAL_API_TOKEN of at least 32 bytes");
  }
  if (c.production && c.auth == auth_mode::none) {
    return fail(api_error::invalid_config, "production mode needs PLATFORM_AUTH_MODE=external");
  }
  c.jwt_issuer = env("PLATFORM_JWT_ISSUER");
  c.jwt_audience = env("PLATFORM_JWT_AUDIENCE");
  c.jwt_hs256_secret = env("PLATFORM_JWT_HS256_SECRET");
  if (std::string key_file = env("PLATFORM_JWT_PUBLIC_KEY_FILE"); !key_file.empty()) {
    std::ifstream in(key_file);
    if (!in) return fail(api_error::invalid_config, "PLATFORM_JWT_PUBLIC_KEY_FILE cannot be read");
    std::stringstream ss;
    ss << in.rdbuf();
    c.jwt_rs256_public_key_pem = ss.str();
  }
  if (c.auth == auth_mode::external &&
      (c.jwt_issuer.empty() || c.jwt_audience.empty() ||
       (c.jwt_hs256_secret.empty() && c.jwt_rs256_public_key_pem.empty()))) {
    return fail(api_error::invalid_config,
                "external auth needs PLATFORM_JWT_ISSUER, PLATFORM_JWT_AUDIENCE and PLATFORM_JWT_HS256_SECRET or "
                "PLATFORM_JWT_PUBLIC_KEY_FILE");
  }
  auto body = env_number("PLATFORM_MAX_BODY_BYTES", static_cast<long>(c.max_body_bytes), 1024, 1L << 30);
  if (!body) return tl::unexpected(body.error());
  c.max_body_bytes = static_cast<std::size_t>(*body);
  auto lease = env_number("PLATFORM_STREAM_LEASE_MS", 30000, 1000, 3600000);
  if (!lease) return tl::unexpected(lease.error());
  c.lease = std::chrono::milliseconds(*lease);
  auto hb = env_number("PLATFORM_SSE_HEARTBEAT_MS", 15000, 100, 600000);
  if (!hb) return tl::unexpected(hb.error());
  c.heartbeat = std::chrono::milliseconds(*hb);
  auto replay_bytes = env_number("PLATFORM_REPLAY_MAX_BYTES", static_cast<long long>(c.replay_max_bytes), 1024, 1LL << 32);
  if (!replay_bytes) return tl::unexpected(replay_bytes.error());
  c.replay_max_bytes = static_cast<std::size_t>(*replay_bytes);
  auto replay_events = env_number("PLATFORM_REPLAY_MAX_EVENTS", static_cast<long long>(c.replay_max_events), 16, 1LL << 24);
  if (!replay_events) return tl::unexpected(replay_events.error());
  c.replay_max_events = static_cast<std::size_t>(*replay_events);
  auto outage = env_number("PLATFORM_CACHE_OUTAGE_MS", c.cache_outage_limit.count(), 100, 3600000);
  if (!outage) return tl::unexpected(outage.error());
  c.cache_outage_limit = std::chrono::milliseconds(*outage);
  auto check = env_number("PLATFORM_AGENT_RUN_CHECK_MS", c.agent_run_check.count(), 100, 3600000);
  if (!check) return tl::unexpected(check.error());
  c.agent_run_check = std::chrono::milliseconds(*check);
  auto tick = env_number("PLATFORM_ROUTINE_TICK_MS", c.routine_tick.count(), 50, 3600000);
  if (!tick) return tl::unexpected(tick.error());
  c.routine_tick = std::chrono::milliseconds(*tick);
  c.routine_clock_file = env("PLATFORM_ROUTINE_CLOCK_FILE");
  auto unreachable = env_number("PLATFORM_AGENT_RUN_UNREACHABLE_MS", c.agent_run_unreachable_limit.count(), 100, 86400000);
  if (!unreachable) return tl::unexpected(unreachable.error());
  c.agent_run_unreachable_limit = std::chrono::milliseconds(*unreachable);
  auto keep = env_number("PLATFORM_VERSION_KEEP", c.version_keep, 0, 1000000);
  if (!keep) return tl::unexpected(keep.error());
  c.version_keep = *keep;
  auto max_age = env_number("PLATFORM_VERSION_MAX_AGE_DAYS", c.version_max_age_days, 0, 36500);
  if (!max_age) return tl::unexpected(max_age.error());
  c.version_max_age_days = *max_age;
  if (auto actions = http_action_settings(c); !actions) return tl::unexpected(actions.error());
  c.ui_dir = env("PLATFORM_UI_DIR", default_ui_dir(exe_path));
  return c;
}

}  // namespace platform::web
