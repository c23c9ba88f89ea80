// Replies of HTTP actions. A provider may echo what it was sent (an error saying "invalid key
// abc123", an echo endpoint), so secret values are scrubbed from everything taken from its
// answer, before the redactor bounds it.
#include "platform/http_action_result.hpp"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/ascii.hpp"
#include "platform/compact_json.hpp"
#include "platform/json_limits.hpp"
#include "platform/redaction.hpp"

namespace platform {
namespace {

using nlohmann::json;

std::string media_type(const http_response& r) {
  return ascii_lower(media_type_of(r.header("content-type").value_or("")));
}

bool json_media_type(std::string_view mt) {
  return mt.empty() || mt == "application/json" || mt == "text/json" || mt.ends_with("+json");
}

bool compressed(const http_response& r) {
  auto ce = r.header("content-encoding");
  return ce && !trim_ows(*ce).empty() && ascii_lower(trim_ows(*ce)) != "identity";
}

// JSON text stays JSON; anything else (or JSON nested deeper than the reply can embed) is
// carried as a JSON string.
std::string as_data(const std::string& body, std::string_view mt) {
  if (json_media_type(mt) && !nests_deeper_than(body, 256) && json::accept(body)) return body;
  return compact_json(json(body));
}

std::string_view resolution_for_status(int s) {
  if (s == 401) return "The provider refused the credentials: check the integration's key or connected account in the integration settings.";
  if (s == 403) return "The provider denied access: check the integration's permissions or scopes in the integration settings.";
  if (s == 404) return "The provider has no such resource: check the tool input and the endpoint.";
  if (s == 408 || s == 429) return "The provider is busy or rate limiting: try again later.";
  if (s >= 500) return "The provider failed to answer: try again later.";
  if (s >= 400) return "The provider rejected the request: check the tool input and the endpoint.";
  return "The provider answered with a status the executor does not follow.";
}

bool retryable_status(int s) { return s == 408 || s == 425 || s == 429 || s >= 500; }

bool credential_header(std::string_view name) {
  std::string n = ascii_lower(name);
  return n == "authorization" || n == "proxy-authorization" || n == "cookie" || n.ends_with("key") ||
         secret_member_name(name);
}

void add_cookie_values(std::string_view cookie, std::vector<std::string>& out) {
  while (!cookie.empty()) {
    std::size_t semi = cookie.find(';');
    std::string_view pair = cookie.substr(0, semi);
    std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos) out.emplace_back(trim_ows(pair.substr(eq + 1)));
    if (semi == std::string_view::npos) break;
    cookie.remove_prefix(semi + 1);
  }
}

integration_tool_result provider_error(const http_response& r, std::string_view origin,
                                       const std::vector<std::string>& secret_values) {
  json details{{"statusCode", r.status}, {"origin", std::string(origin.substr(0, 300))}};
  std::string mt = media_type(r);
  if (!mt.empty()) details["contentType"] = mt.substr(0, 128);
  if (compressed(r)) {
    details["bodyOmitted"] = "compressed";
  } else if (!r.body.empty()) {
    redaction_limits limits{.max_string_bytes = 512, .max_members = 20, .max_depth = 4, .max_total_bytes = 2048};
    details["body"] = json::parse(redact_json(scrub_secrets(r.body, secret_values), limits), nullptr, false);
  }
  // 401 and 403 are the integration owner's to fix (keys, scopes, access), never a builder
  // repair: their own categories say so to the app and to the repair flow.
  auto result = integration_tool_result::failure(
      r.status == 401   ? integration_error::provider_unauthorized
      : r.status == 403 ? integration_error::provider_forbidden
                        : integration_error::provider_http_error,
      std::string(origin.substr(0, 300)) + " answered HTTP " + std::to_string(r.status),
      std::string(resolution_for_status(r.status)), compact_json(details));
  result.status_code = r.status;
  result.retryable = retryable_status(r.status);
  return result;
}

}  // namespace

integration_tool_result http_action_failed(integration_error f, std::string message,
                                           std::optional<std::string> details_json) {
  return integration_tool_result::failure(f, std::move(message), {}, std::move(details_json));
}

integration_error failure_of_url_error(api_error code) {
  switch (code) {
    case api_error::scheme_not_allowed:
    case api_error::insecure_redirect: return integration_error::scheme_not_allowed;
    case api_error::invalid_host:
    case api_error::userinfo_not_allowed: return integration_error::host_not_allowed;
    case api_error::invalid_request: return integration_error::invalid_request;
    default: return integration_error::invalid_url;
  }
}

integration_tool_result http_action_result(const http_response& response, std::string_view origin,
                                           const std::vector<std::string>& secret_values) {
  if (response.status < 200 || response.status > 299) return provider_error(response, origin, secret_values);
  if (compressed(response)) {
    return http_action_failed(integration_error::invalid_provider_response,
                              std::string(origin.substr(0, 300)) + " sent a compressed body although identity was asked for");
  }
  integration_tool_result r;
  r.success = true;
  r.status_code = response.status;
  if (!response.body.empty()) r.data_json = as_data(scrub_secrets(response.body, secret_values), media_type(response));
  return r;
}

std::vector<std::string> credential_values(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::vector<std::string> out;
  for (const auto& [name, value] : headers) {
    if (!credential_header(name)) continue;
    std::string_view v = trim_ows(value);
    out.emplace_back(v);
    std::size_t space = v.find(' ');
    if (space != std::string_view::npos) out.emplace_back(trim_ows(v.substr(space + 1)));
    if (ascii_lower(name) == "cookie") add_cookie_values(v, out);
  }
  return out;
}

}  // namespace platform
