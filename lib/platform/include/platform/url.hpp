#pragma once
// Absolute http(s) URLs as the HTTP executor reads them: scheme, host, port and request
// target, plus RFC 3986 resolution of a redirect's Location. The host is recognised the way
// the system resolver would read it, so "127.1", "2130706433" and "0x7f.1" come out as the
// IPv4 address 127.0.0.1 and are guarded as one. Rules: docs/http-executor.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/error.hpp"
#include "platform/ip_address.hpp"

namespace platform {

enum class host_kind { name, ipv4, ipv6 };

struct url {
  std::string scheme;  // "http" or "https"
  std::string host;    // lower-case name, dotted quad, or canonical IPv6 text without brackets
  host_kind kind = host_kind::name;
  std::uint16_t port = 0;  // explicit or the scheme's default
  std::string target;      // path and query, starting with '/'; never a fragment

  [[nodiscard]] std::optional<ip_address> address() const;  // IP literal hosts only
  [[nodiscard]] bool default_port() const;
  // "host", "host:port" or "[v6]:port": the Host header.
  [[nodiscard]] std::string authority() const;
  // "https://host[:port]": safe for messages, since the path and query may carry secrets.
  [[nodiscard]] std::string origin() const;
  [[nodiscard]] std::string text() const;

  friend bool operator==(const url&, const url&) = default;
};

// Error codes: `invalid_url` (syntax), `scheme_not_allowed` (not http or https),
// `invalid_host` (non-ASCII or percent-encoded names, IPv6 zone ids, numeric hosts that are no
// valid IPv4 address, trailing dots), `userinfo_not_allowed` (user@host).
// Space, non-ASCII and other bytes never valid in a URL are percent-encoded in the path and
// query; control characters are refused anywhere. The fragment is dropped.
result<url> parse_url(std::string_view text);

// A redirect's Location (absolute, scheme-relative, absolute-path or relative reference)
// against the URL that answered it, with the same errors as parse_url.
result<url> resolve_url(const url& base, std::string_view reference);

// True when `u`'s host is `domain` or a subdomain of it (compared without case). A domain that
// is an IP address matches only the same address, never "subdomains".
bool host_in_domain(const url& u, std::string_view domain);

}  // namespace platform
