#include "platform/request_guard.hpp"

#include <array>

#include "platform/ascii.hpp"
#include "platform/host_header.hpp"

namespace platform {

namespace {

bool is_loopback_host(std::string_view host) noexcept {
  std::string_view name = split_host_header(host).name;
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  return name == "127.0.0.1" || name == "[::1]" || iequals(name, "localhost") || iends_with(name, ".localhost");
}

// Origin names the same scheme-less authority as the Host header ("http://h:1" vs "h:1").
bool same_origin_as_host(std::string_view origin, std::string_view host) noexcept {
  for (std::string_view scheme : {std::string_view("http://"), std::string_view("https://")}) {
    if (origin.size() > scheme.size() && iequals(origin.substr(0, scheme.size()), scheme)) {
      return !host.empty() && iequals(origin.substr(scheme.size()), host);
    }
  }
  return false;  // "null", other schemes, garbage
}

bool trusted_origin(std::string_view origin, const request_guard_policy& policy) noexcept {
  for (const auto& o : policy.trusted_origins) {
    if (iequals(o, origin)) return true;
  }
  return false;
}

bool trusted_host(std::string_view host, const request_guard_policy& policy) noexcept {
  for (const auto& o : policy.trusted_origins) {
    if (same_origin_as_host(o, host)) return true;
  }
  return false;
}

bool is_json_media_type(std::string_view content_type) noexcept {
  std::string_view type = media_type_of(content_type);
  return iequals(type, "application/json") || iends_with(type, "+json");
}

constexpr std::array request_refusal_table{
    request_refusal_info{api_error::cross_site_request,
                         "This request came from another site or origin. Use the platform's own page, or call the API "
                         "from a program (no Origin or Sec-Fetch-Site header)."},
    request_refusal_info{api_error::host_not_allowed,
                         "This server runs without sign-in and answers only to a loopback host name "
                         "(127.0.0.1, localhost, [::1])."},
    request_refusal_info{api_error::unsupported_media_type, "The request body must be sent as Content-Type: application/json."},
    request_refusal_info{api_error::body_too_large, "The request body is larger than this server accepts."},
    request_refusal_info{api_error::length_required,
                         "Send the request body with a Content-Length; chunked request bodies are not accepted."},
};
// The table is indexed by the enum: one entry per refusal, in its order.
static_assert(request_refusal_table.size() == static_cast<std::size_t>(request_refusal::length_required) + 1);
static_assert(request_refusal_table[static_cast<std::size_t>(request_refusal::cross_site_request)].error == api_error::cross_site_request);
static_assert(request_refusal_table[static_cast<std::size_t>(request_refusal::host_not_allowed)].error == api_error::host_not_allowed);
static_assert(request_refusal_table[static_cast<std::size_t>(request_refusal::unsupported_media_type)].error == api_error::unsupported_media_type);
static_assert(request_refusal_table[static_cast<std::size_t>(request_refusal::body_too_large)].error == api_error::body_too_large);
static_assert(request_refusal_table[static_cast<std::size_t>(request_refusal::length_required)].error == api_error::length_required);

}  // namespace

request_refusal_info describe(request_refusal r) noexcept { return request_refusal_table[static_cast<std::size_t>(r)]; }

bool is_state_changing(std::string_view method) noexcept {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

std::optional<request_refusal> guard_request(const request_head& head, const request_guard_policy& policy) {
  if (policy.loopback_hosts_only && !is_loopback_host(head.host) && !trusted_host(head.host, policy)) {
    return request_refusal::host_not_allowed;
  }
  if (!policy.browser_callers) {
    // "none" is a navigation the person typed; still nothing the worker serves to a browser.
    if (!head.sec_fetch_site.empty() || !head.origin.empty()) return request_refusal::cross_site_request;
  } else if (is_state_changing(head.method)) {
    if (!head.sec_fetch_site.empty() && !iequals(head.sec_fetch_site, "same-origin") && !iequals(head.sec_fetch_site, "none")) {
      return request_refusal::cross_site_request;
    }
    if (!head.origin.empty() && !same_origin_as_host(head.origin, head.host) && !trusted_origin(head.origin, policy)) {
      return request_refusal::cross_site_request;
    }
  }
  if (is_state_changing(head.method) && head.has_body && !is_json_media_type(head.content_type)) {
    return request_refusal::unsupported_media_type;
  }
  if (head.declared_length && *head.declared_length > policy.max_body_bytes) return request_refusal::body_too_large;
  // cpp-httplib buffers a chunked body whole, with no limit, before any handler sees it (a
  // 300 MB one took the web server to 579 MB): the only bound is to take no such body. No
  // client of either server sends one (browsers' fetch, the AI SDK, the runtimes' MCP clients
  // and our own all send a Content-Length).
  if (head.transfer_encoded) return request_refusal::length_required;
  return std::nullopt;
}

}  // namespace platform
