// The request bytes of one hop. Header values come from tool input and secrets, so anything
// that could end a header line is refused rather than escaped: there is no safe escape.
#include "platform/http_hop.hpp"
#include "platform/api_error.hpp"
#include "platform/ascii.hpp"

#include <algorithm>
#include <array>

namespace platform {
namespace {

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

// Headers that describe the connection or the message framing belong to the executor: a tool
// setting them could smuggle a second request or hide the body from the length limit.
constexpr std::array<std::string_view, 11> owned_headers{
    "host", "content-length", "transfer-encoding", "connection", "keep-alive", "te",
    "upgrade", "expect", "accept-encoding", "proxy-connection", "trailer"};

bool owned(std::string_view name) {
  return std::any_of(owned_headers.begin(), owned_headers.end(), [&](std::string_view o) { return iequals(o, name); });
}

bool safe_value(std::string_view v) { return v.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos; }

bool sends_length_without_body(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace

result<http_hop> first_hop(const http_request& request) {
  auto target = parse_url(request.url);
  if (!target) return tl::unexpected(target.error());
  return http_hop{request.method, std::move(*target), request.headers, request.body};
}

result<std::string> write_http_request(const http_hop& hop, std::string_view user_agent) {
  if (!is_token(hop.method)) return fail(api_error::invalid_request, "the method is not an HTTP token");
  std::string out = hop.method + " " + hop.target.target + " HTTP/1.1\r\nHost: " + hop.target.authority() + "\r\n";
  bool has_agent = false;
  for (const auto& [name, value] : hop.headers) {
    if (!is_token(name)) return fail(api_error::invalid_request, "a header name is not an HTTP token");
    if (!safe_value(value)) {
      return fail(api_error::invalid_request, "the value of header " + name.substr(0, 64) + " contains CR, LF or NUL");
    }
    if (owned(name)) continue;
    has_agent = has_agent || iequals(name, "user-agent");
    out += name + ": " + value + "\r\n";
  }
  if (!has_agent && !user_agent.empty()) out += "User-Agent: " + std::string(user_agent) + "\r\n";
  if (hop.body) out += "Content-Length: " + std::to_string(hop.body->size()) + "\r\n";
  else if (sends_length_without_body(hop.method)) out += "Content-Length: 0\r\n";
  out += "Accept-Encoding: identity\r\nConnection: close\r\n\r\n";
  if (hop.body) out += *hop.body;
  return out;
}

}  // namespace platform
