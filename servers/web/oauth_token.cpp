// Token endpoint calls. The executor is this module's own (built once from the web config):
// the tool runner's is private to it, and token calls need the same guards, not the same object.
#include "../common/json_fields.hpp"
#include "oauth_token.hpp"

#include <cctype>
#include <mutex>

#include <nlohmann/json.hpp>

#include "adapters/http_executor.hpp"
#include "platform/api_error.hpp"
#include "platform/ip_guard.hpp"
#include "platform/url.hpp"
#include "web_app.hpp"

namespace platform::web {

using nlohmann::json;

namespace {

result<const http_executor*> token_executor(const config& cfg) {
  static std::once_flag once;
  static result<std::unique_ptr<http_executor>> made = fail(api_error::internal, "unset");
  std::call_once(once, [&] {
    auto allow = address_allow_list::parse(cfg.http_action_allow);
    if (!allow) {
      made = tl::unexpected(allow.error());
      return;
    }
    http_executor_options o;
    o.max_response_bytes = 256 * 1024;  // a token reply is small; more is not a token reply
    o.timeout = cfg.http_action_timeout;
    o.max_redirects = 0;  // RFC 6749 token endpoints answer directly; a redirect would re-send the client secret
    o.allow_list = std::move(*allow);
    o.extra_ca_file = cfg.http_action_ca_file;
    made = http_executor::create(std::move(o));
  });
  if (!made) return tl::unexpected(made.error());
  return made->get();
}

std::string form(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  std::string out;
  for (const auto& [k, v] : fields) {
    if (!out.empty()) out.push_back('&');
    out.append(form_encode(k)).append("=").append(form_encode(v));
  }
  return out;
}

std::vector<std::string> split_scope(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    auto end = s.find_first_of(" ,", i);
    if (end == std::string_view::npos) end = s.size();
    if (end > i) out.emplace_back(s.substr(i, end - i));
    i = end + 1;
  }
  return out;
}

// POSTs the form and reads the JSON token reply; provider error codes (RFC 6749 5.2) are
// passed on, bodies never (they may echo credentials).
result<json> post_token_form(web_app& app, const std::string& token_url, const std::string& body) {
  auto target = parse_url(token_url);
  if (!target) return fail(api_error::oauth_provider_invalid, "the provider's token URL is not a valid http(s) URL");
  auto executor = token_executor(app.cfg);
  if (!executor) return fail(api_error::oauth_token_failed, "the token client could not start: " + executor.error().message);
  http_request req{"POST", token_url,
                   {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}},
                   body, "application/x-www-form-urlencoded"};
  auto sent = (*executor)->send(req, target->host);
  if (!sent) return fail(api_error::oauth_token_failed, "token endpoint unreachable: " + sent.error().error.value_or("failed"));
  json reply = servers::parse_json_within(sent->response.body);
  if (sent->response.status < 200 || sent->response.status > 299) {
    std::string code = reply.is_object() && reply.contains("error") && reply["error"].is_string()
                           ? reply["error"].get<std::string>().substr(0, 64)
                           : "";
    return fail(api_error::oauth_token_refused, "the token endpoint answered HTTP " + std::to_string(sent->response.status) +
                                           (code.empty() ? "" : " (" + code + ")"));
  }
  if (!reply.is_object() || !reply.contains("access_token") || !reply["access_token"].is_string()) {
    return fail(api_error::oauth_token_failed, "the token endpoint's reply has no access_token");
  }
  return reply;
}

oauth_tokens tokens_from(const json& reply, std::optional<std::string> previous_refresh,
                         const std::vector<std::string>& previous_scopes, std::int64_t now) {
  oauth_tokens t;
  t.access_token = reply["access_token"].get<std::string>();
  t.refresh_token = reply.contains("refresh_token") && reply["refresh_token"].is_string()
                        ? std::optional<std::string>(reply["refresh_token"].get<std::string>())
                        : std::move(previous_refresh);
  if (reply.contains("expires_in") && reply["expires_in"].is_number()) {
    t.expires_at = now + static_cast<std::int64_t>(reply["expires_in"].get<double>() * 1000);
  }
  t.scopes = reply.contains("scope") && reply["scope"].is_string() ? split_scope(reply["scope"].get<std::string>())
                                                                     : previous_scopes;
  return t;
}

}  // namespace

std::string form_encode(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 0xf]);
    }
  }
  return out;
}

result<oauth_tokens> exchange_code(web_app& app, const oauth_provider_config& provider, const std::string& code,
                                   const std::string& code_verifier, const std::string& redirect_uri,
                                   const std::vector<std::string>& requested, std::int64_t now) {
  auto reply = post_token_form(app, provider.token_url,
                               form({{"grant_type", "authorization_code"}, {"code", code}, {"redirect_uri", redirect_uri},
                                     {"client_id", provider.client_id}, {"client_secret", provider.client_secret},
                                     {"code_verifier", code_verifier}}));
  if (!reply) return tl::unexpected(reply.error());
  return tokens_from(*reply, std::nullopt, requested, now);
}

result<oauth_tokens> refresh_tokens(web_app& app, const oauth_provider_config& provider, const std::string& refresh_token,
                                    const std::vector<std::string>& scopes, std::int64_t now) {
  auto reply = post_token_form(app, provider.token_url,
                               form({{"grant_type", "refresh_token"}, {"refresh_token", refresh_token},
                                     {"client_id", provider.client_id}, {"client_secret", provider.client_secret}}));
  if (!reply) return tl::unexpected(reply.error());
  return tokens_from(*reply, refresh_token, scopes, now);
}

}  // namespace platform::web
