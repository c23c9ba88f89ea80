#pragma once
// The cross-site request guard: what a server refuses before routing, from the request's own
// head. Browsers label every request with Fetch Metadata (Sec-Fetch-Site) and every
// cross-origin write with Origin, so a page on another site, an app preview on a
// `*.localhost` subdomain (same-site but not same-origin) or a sandboxed frame (`Origin: null`)
// cannot drive the API, while clients that are no browser (the worker, the CLIs, curl) send
// neither header and pass. Bodies of the JSON routes must be declared JSON, so a "simple"
// cross-origin request (text/plain, a form) never reaches a handler even from a browser too old
// to send those headers. In local mode a Host that is no loopback name is refused, which keeps
// DNS-rebinding pages (evil.example resolving to 127.0.0.1) off an unauthenticated server.
// Rules and codes: docs/http-api.md, "Cross-site requests".
#include "platform/api_error.hpp"
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace platform {

// The head fields the guard reads; absent headers are empty.
struct request_head {
  std::string_view method;
  std::string_view host;            // Host
  std::string_view origin;          // Origin
  std::string_view sec_fetch_site;  // Sec-Fetch-Site
  std::string_view content_type;    // Content-Type
  bool has_body = false;            // a Content-Length above 0 or a Transfer-Encoding
  std::optional<std::uint64_t> declared_length;  // Content-Length, when it is a number
  bool transfer_encoded = false;    // a Transfer-Encoding header (a chunked body)
};

struct request_guard_policy {
  // The web server serves its own page: same-origin browser requests are its users. The
  // worker has no browser caller at all, so any request a browser labels is refused there.
  bool browser_callers = true;
  // Refuse a Host that is not 127.0.0.1, [::1], localhost or *.localhost (any port).
  bool loopback_hosts_only = false;
  // Origins ("https://builder.example.com") a reverse proxy serves the page from, accepted
  // besides the origin the Host header names.
  std::span<const std::string> trusted_origins;
  // A declared body larger than this is refused before any of it is read: the server never
  // waits for (or reads) bytes it would refuse anyway.
  std::uint64_t max_body_bytes = UINT64_MAX;
};

// One closed set of refusals.
enum class request_refusal {
  cross_site_request,      // 403: another site, another origin, or a browser at the worker
  host_not_allowed,        // 421: not a loopback Host in local mode
  unsupported_media_type,  // 415: a body on a JSON route that is not declared JSON
  body_too_large,          // 413: a declared Content-Length over the server's limit
  length_required,         // 411: a body without a Content-Length (Transfer-Encoding)
};

struct request_refusal_info {
  api_error error;           // the code and its status (api_error.hpp)
  std::string_view message;  // what the caller can do about it
};

request_refusal_info describe(request_refusal r) noexcept;

// Whether a method can change state: anything but GET, HEAD and OPTIONS.
bool is_state_changing(std::string_view method) noexcept;

// Nothing when the request may be routed; else why not.
std::optional<request_refusal> guard_request(const request_head& head, const request_guard_policy& policy);

}  // namespace platform
