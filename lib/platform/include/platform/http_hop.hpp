#pragma once
// One request of an HTTP action as it goes on the wire: the tool's request with its URL read
// (platform/url.hpp), and the HTTP/1.1 bytes for it. The executor adds the headers it owns
// (Host, Content-Length, Connection, Accept-Encoding) and drops the tool's versions of them.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/error.hpp"
#include "platform/tool_request.hpp"
#include "platform/url.hpp"

namespace platform {

struct http_hop {
  std::string method;  // upper case token
  url target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<std::string> body;
};

// The first hop of `request`; parse_url's error codes.
result<http_hop> first_hop(const http_request& request);

// Request line, Host, the hop's headers (minus the ones the executor owns), Content-Length,
// `Accept-Encoding: identity`, `Connection: close`, and User-Agent when the tool sets none.
// Error `invalid_request` for a method or header name that is not a token, or a header
// value with CR, LF or NUL (which would let a value inject headers).
result<std::string> write_http_request(const http_hop& hop, std::string_view user_agent);

}  // namespace platform
