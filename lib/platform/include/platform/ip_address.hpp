#pragma once
// IP addresses as values: text parsing the way the resolver would read it, canonical text and
// networks (CIDR). Parsing is deliberately our own, not inet_pton/inet_aton, so the SSRF guard
// and its fuzzer see exactly the rules the executor applies.
#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

struct ip_address {
  enum class family_t : std::uint8_t { v4, v6 };
  family_t family = family_t::v4;
  std::array<std::uint8_t, 16> bytes{};  // IPv4 uses bytes[0..3], the rest stays zero

  static ip_address v4(std::uint32_t host_order);
  static ip_address v6(const std::array<std::uint8_t, 16>& bytes);

  [[nodiscard]] bool is_v4() const { return family == family_t::v4; }
  [[nodiscard]] std::size_t size() const { return is_v4() ? 4 : 16; }

  friend bool operator==(const ip_address&, const ip_address&) = default;
};

// IPv4 in every form inet_aton accepts: one to four parts, each decimal, octal (leading 0) or
// hex (0x), the last part filling the remaining bytes ("127.1", "2130706433", "0x7f.1",
// "0177.0.0.1"). Anything else, including an overflowing part, is nullopt.
std::optional<ip_address> parse_ipv4(std::string_view text);

// Only the dotted quad of four decimal parts without leading zeros (what operators and
// integration.domain write).
std::optional<ip_address> parse_ipv4_strict(std::string_view text);

// RFC 4291 text: hex groups, at most one "::", an optional trailing dotted quad. No zone id
// ("%eth0") and no brackets.
std::optional<ip_address> parse_ipv6(std::string_view text);

// Canonical text: dotted quad, or RFC 5952 for IPv6 (lower case, longest zero run as "::",
// IPv4-mapped addresses as ::ffff:a.b.c.d).
std::string to_string(const ip_address& a);

// A CIDR block such as 10.0.0.0/8 or fc00::/7.
struct ip_network {
  ip_address base;  // host bits cleared
  unsigned prefix = 0;

  [[nodiscard]] bool contains(const ip_address& a) const;
  friend bool operator==(const ip_network&, const ip_network&) = default;
};

// "a.b.c.d/n", "v6/n", or a bare strict address (a /32 or /128). Host bits must be zero.
result<ip_network> parse_ip_network(std::string_view text);

std::string to_string(const ip_network& n);

}  // namespace platform
