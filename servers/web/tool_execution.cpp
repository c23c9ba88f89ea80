#include "tool_execution.hpp"

#include <chrono>
#include <cstdio>

#include "integration_credentials.hpp"
#include "platform/integration_error.hpp"
#include "platform/placeholder.hpp"
#include "platform/tool_request.hpp"
#include "tool_shaping.hpp"

namespace platform::web {

namespace {

// Input checks first, with stand-in credentials: a call with wrong input fails the same way
// whether or not the integration is configured (so an agent learns the right input even in
// mock mode), and costs no credential lookup (an OAuth refresh is a provider round trip).
std::optional<integration_tool_result> input_problem(const tool& t, std::string_view input) {
  tool_request_options stand_in;
  if (t.integration && t.integration->oauth2) stand_in.oauth_access_token = "stand-in-token";
  auto built = build_tool_request(t, input, [](std::string_view) { return std::optional<std::string>("stand-in"); },
                                  stand_in);
  if (built) return std::nullopt;
  return built.error();
}

std::vector<std::string> secret_values(const tool_request& built, const tool_credentials& creds) {
  std::vector<std::string> out;
  for (const auto& name : built.secret_names) {
    if (auto value = creds.secrets ? creds.secrets(name) : std::nullopt) out.push_back(std::move(*value));
  }
  if (creds.oauth_access_token) out.push_back(*creds.oauth_access_token);
  return out;
}

// Ids, the outcome code and timing only: URLs and headers may carry secrets.
void log_outcome(const tool_call& call, const tool& t, const integration_tool_result& r,
                 std::chrono::steady_clock::duration took) {
  std::string outcome = r.mock ? "mock" : r.success ? "success" : r.error_code ? std::string(code_of(*r.error_code)) : "FAILED";
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
  std::fprintf(stderr, "web: tool app=%s tool=%s outcome=%s status=%d ms=%lld\n", call.app_id.c_str(),
               t.name.c_str(), outcome.c_str(), r.status_code.value_or(0), static_cast<long long>(ms));
}

}  // namespace

std::vector<std::string> known_secret_values(web_app& app, const tool& t, const tool_call& call) {
  std::vector<std::string> out;
  if (!t.endpoint) return out;
  auto creds = credentials_for(app, call.workspace_id, call.app_id, t, call.user_id);
  auto usage = endpoint_placeholder_usage(*t.endpoint);
  if (!creds || !usage) return out;
  for (const auto& name : usage->secret_names) {
    if (auto value = creds->secrets ? creds->secrets(name) : std::nullopt) out.push_back(std::move(*value));
  }
  if (creds->oauth_access_token) out.push_back(*creds->oauth_access_token);
  return out;
}

result<std::unique_ptr<tool_runner>> tool_runner::create(const config& cfg, mock_picker pick) {
  auto allow = address_allow_list::parse(cfg.http_action_allow);
  if (!allow) return tl::unexpected(allow.error());
  http_executor_options options;
  options.max_response_bytes = cfg.http_action_max_response_bytes;
  options.timeout = cfg.http_action_timeout;
  options.max_redirects = cfg.http_action_max_redirects;
  options.allow_list = std::move(*allow);
  options.extra_ca_file = cfg.http_action_ca_file;
  auto executor = http_executor::create(std::move(options));
  if (!executor) return tl::unexpected(executor.error());
  return std::unique_ptr<tool_runner>(new tool_runner(std::move(*executor), std::move(pick)));
}

tool_runner::tool_runner(std::unique_ptr<http_executor> executor, mock_picker pick)
    : executor_(std::move(executor)), pick_(std::move(pick)), rng_(std::random_device{}()) {}

std::size_t tool_runner::pick(std::size_t count) const {
  if (count == 0) return 0;
  if (pick_) return pick_(count) % count;
  std::lock_guard lock(rng_mu_);
  return std::uniform_int_distribution<std::size_t>(0, count - 1)(rng_);
}

integration_tool_result tool_runner::run(web_app& app, const tool& t, const tool_call& call) const {
  auto started = std::chrono::steady_clock::now();
  auto reply = [&]() -> integration_tool_result {
    if (t.type != tool_type::custom || !t.integration || !t.endpoint) {
      return integration_tool_result::failure(integration_error::not_a_custom_tool,
                                              "Tool " + t.name + " is not a custom HTTP tool.",
                                              "Give the tool an integration and an endpoint in agents.json.");
    }
    if (auto bad = input_problem(t, call.input_json)) return finalize_result(std::move(*bad), {});
    auto creds = credentials_for(app, call.workspace_id, call.app_id, t, call.user_id);
    if (!creds) {
      std::fprintf(stderr, "web: tool app=%s tool=%s credentials unavailable: %s\n", call.app_id.c_str(),
                   t.name.c_str(), code_c_str(creds.error()));
      auto r = integration_tool_result::failure(integration_error::credentials_unavailable,
                                                "The platform could not read the integration's credentials.",
                                                "Try again later.");
      r.retryable = true;
      return r;
    }
    if (creds->mock_reason) return finalize_result(mock_result(t, *creds->mock_reason, pick(t.mock_data_json.size())), {});
    auto built = build_tool_request(t, call.input_json, creds->secrets, {creds->oauth_access_token});
    if (!built) {
      if (means_not_configured(built.error())) {  // even when the credentials lookup did not say so
        return finalize_result(mock_result(t, built.error().error.value_or("not configured"), pick(t.mock_data_json.size())), {});
      }
      return finalize_result(std::move(built.error()), {});
    }
    auto secrets = secret_values(*built, *creds);
    return finalize_result(executor_->execute(built->request, t.integration->domain, secrets), secrets);
  }();
  log_outcome(call, t, reply, std::chrono::steady_clock::now() - started);
  return reply;
}

}  // namespace platform::web
