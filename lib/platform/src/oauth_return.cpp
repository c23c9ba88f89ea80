#include "platform/oauth_return.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <array>
#include <utility>

#include "platform/api_error.hpp"
#include "platform/ascii.hpp"
#include "platform/ids.hpp"

namespace platform {

namespace {

constexpr std::array<std::pair<oauth_page_error, std::string_view>, 9> page_errors{{
    {oauth_page_error::invalid_state, "invalid_state"},
    {oauth_page_error::forbidden, "forbidden"},
    {oauth_page_error::oauth_denied, "oauth_denied"},
    {oauth_page_error::oauth_provider_error, "oauth_provider_error"},
    {oauth_page_error::not_found, "not_found"},
    {oauth_page_error::oauth_token_refused, "oauth_token_refused"},
    {oauth_page_error::oauth_token_failed, "oauth_token_failed"},
    {oauth_page_error::unauthenticated, "unauthenticated"},
    {oauth_page_error::connect_failed, "connect_failed"},
}};

// RFC 6749 4.1.2.1: what an authorization endpoint may answer instead of a code.
constexpr std::array<std::string_view, 7> authorization_errors{
    "invalid_request", "unauthorized_client", "access_denied", "unsupported_response_type",
    "invalid_scope",   "server_error",        "temporarily_unavailable"};

std::string page_of(const oauth_attempt& r) {
  std::string p = "/w/" + r.workspace_id;
  if (!r.app_id.empty()) p += "/apps/" + r.app_id + "/integrations";
  return p;
}

}  // namespace

bool is_page_navigation(std::string_view sec_fetch_mode, std::string_view accept) noexcept {
  return iequals(sec_fetch_mode, "navigate") || ascii_lower(accept).find("text/html") != std::string::npos;
}

std::string to_cookie_value(const oauth_attempt& a) {
  return a.workspace_id + "." + a.app_id + "." + a.provider_key + "." + a.state;
}

std::optional<oauth_attempt> parse_oauth_attempt(std::string_view v) {
  std::array<std::string, 4> parts;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    auto dot = i + 1 < parts.size() ? v.find('.') : v.size();
    if (dot == std::string_view::npos) return std::nullopt;
    parts[i] = std::string(v.substr(0, dot));
    v.remove_prefix(std::min(dot + 1, v.size()));
  }
  oauth_attempt a{parts[0], parts[1], parts[2], parts[3]};
  if (!is_valid_id(a.workspace_id) || !is_valid_id(a.provider_key) || !is_valid_id(a.state) ||
      (!a.app_id.empty() && !is_valid_id(a.app_id))) {
    return std::nullopt;
  }
  return a;
}

bool is_this_browsers_attempt(const oauth_attempt& cookie, std::string_view state_param) noexcept {
  return !cookie.state.empty() && cookie.state.size() == state_param.size() &&
         CRYPTO_memcmp(cookie.state.data(), state_param.data(), state_param.size()) == 0;
}

std::string_view to_string(oauth_page_error e) noexcept {
  for (const auto& [value, name] : page_errors) {
    if (value == e) return name;
  }
  return "connect_failed";
}

oauth_page_error page_error_of(std::string_view api_code) noexcept {
  if (api_code == code_of(api_error::invalid_body)) return oauth_page_error::oauth_provider_error;  // the provider sent no code
  if (api_code == code_of(api_error::oauth_provider_invalid)) return oauth_page_error::oauth_token_failed;
  for (const auto& [value, name] : page_errors) {
    if (name == api_code) return value;
  }
  return oauth_page_error::connect_failed;
}

result<void> check_provider_answer(std::string_view error_param, std::string_view code_param) {
  if (error_param == "access_denied") return fail(api_error::oauth_denied, "access was not granted at the provider");
  if (!error_param.empty()) {
    bool known = false;
    for (auto e : authorization_errors) known = known || e == error_param;
    return fail(api_error::oauth_provider_error, known ? "the provider answered " + std::string(error_param)
                                              : std::string("the provider answered an error"));
  }
  if (code_param.empty()) return fail(api_error::oauth_provider_error, "the provider sent no code");
  return {};
}

std::string connected_location(const oauth_attempt& a) { return page_of(a) + "?connected=" + a.provider_key; }

std::string failure_location(const std::optional<oauth_attempt>& r, std::string_view api_code) {
  std::string q = "?oauthError=" + std::string(to_string(page_error_of(api_code)));
  if (!r) return "/" + q;
  return page_of(*r) + q + "&provider=" + r->provider_key;
}

}  // namespace platform
