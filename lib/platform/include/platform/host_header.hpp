#pragma once
// A Host header's two parts: "[::1]:8787" -> "[::1]" and "8787", "a.localhost:1" ->
// "a.localhost" and "1", "example.com" -> "example.com" and "". The request guard reads the
// name, the preview host its app, the web its port (previews live on the same port locally).
#include <string_view>

namespace platform {

struct host_header_parts {
  std::string_view name;  // an IPv6 literal keeps its brackets
  std::string_view port;  // empty when none was given
};

constexpr host_header_parts split_host_header(std::string_view host) noexcept {
  if (!host.empty() && host.front() == '[') {
    auto close = host.find(']');
    if (close == std::string_view::npos) return {host, {}};
    std::string_view rest = host.substr(close + 1);
    return {host.substr(0, close + 1), rest.size() > 1 && rest.front() == ':' ? rest.substr(1) : std::string_view()};
  }
  auto colon = host.find(':');
  if (colon == std::string_view::npos) return {host, {}};
  return {host.substr(0, colon), host.substr(colon + 1)};
}

}  // namespace platform
