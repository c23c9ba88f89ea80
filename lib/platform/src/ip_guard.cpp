// The address guard: special-purpose ranges from the IANA IPv4 and IPv6 special-purpose
// address registries plus the cloud metadata endpoints. Anything not listed in IPv4 is
// global; in IPv6 only 2000::/3 (minus its listed blocks) is.
#include "platform/ip_guard.hpp"

#include <array>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/ascii.hpp"

namespace platform {
namespace {

struct range {
  std::string_view cidr;
  address_class cls;
};

// First match wins, so the more specific blocks come first.
constexpr std::array<range, 20> ipv4_ranges{{
    {"169.254.169.254/32", address_class::metadata},  // AWS, GCP, Azure, OpenStack
    {"169.254.170.2/32", address_class::metadata},    // AWS ECS task metadata
    {"100.100.100.200/32", address_class::metadata},  // Alibaba Cloud
    {"168.63.129.16/32", address_class::metadata},    // Azure WireServer (a public address)
    {"255.255.255.255/32", address_class::broadcast},
    {"0.0.0.0/8", address_class::unspecified},
    {"10.0.0.0/8", address_class::private_use},
    {"100.64.0.0/10", address_class::shared},
    {"127.0.0.0/8", address_class::loopback},
    {"169.254.0.0/16", address_class::link_local},
    {"172.16.0.0/12", address_class::private_use},
    {"192.0.0.0/24", address_class::protocol_assignments},  // holds Oracle's metadata 192.0.0.192
    {"192.0.2.0/24", address_class::documentation},
    {"192.88.99.0/24", address_class::reserved},  // 6to4 relay anycast, deprecated
    {"192.168.0.0/16", address_class::private_use},
    {"198.18.0.0/15", address_class::benchmarking},
    {"198.51.100.0/24", address_class::documentation},
    {"203.0.113.0/24", address_class::documentation},
    {"224.0.0.0/4", address_class::multicast},
    {"240.0.0.0/4", address_class::reserved},
}};

constexpr std::array<range, 16> ipv6_ranges{{
    {"::/128", address_class::unspecified},
    {"::1/128", address_class::loopback},
    {"fd00:ec2::254/128", address_class::metadata},  // AWS over IPv6
    {"64:ff9b:1::/48", address_class::reserved},     // local-use NAT64: the IPv4 can sit anywhere
    {"100::/64", address_class::reserved},           // discard-only
    {"2001::/32", address_class::teredo},
    {"2001:2::/48", address_class::benchmarking},
    {"2001:db8::/32", address_class::documentation},
    {"2001::/23", address_class::protocol_assignments},
    {"3fff::/20", address_class::documentation},
    {"fc00::/7", address_class::unique_local},
    {"fe80::/10", address_class::link_local},
    {"fec0::/10", address_class::site_local},
    {"ff00::/8", address_class::multicast},
    {"2000::/3", address_class::global},
    {"::/0", address_class::reserved},  // everything else is not assigned for unicast
}};

struct parsed_range {
  ip_network net;
  address_class cls;
};

template <std::size_t N>
std::vector<parsed_range> parsed(const std::array<range, N>& table) {
  std::vector<parsed_range> out;
  for (const auto& r : table) {
    // The tables are constant and covered by tests; a bad entry could only be skipped.
    if (auto net = parse_ip_network(r.cidr)) out.push_back({*net, r.cls});
  }
  return out;
}

address_class lookup(const std::vector<parsed_range>& table, const ip_address& a, address_class otherwise) {
  for (const auto& r : table) {
    if (r.net.contains(a)) return r.cls;
  }
  return otherwise;
}

ip_address embedded_v4(const ip_address& a, std::size_t at) {
  return ip_address::v4(static_cast<std::uint32_t>(a.bytes[at]) << 24 | static_cast<std::uint32_t>(a.bytes[at + 1]) << 16 |
                        static_cast<std::uint32_t>(a.bytes[at + 2]) << 8 | a.bytes[at + 3]);
}

bool zero(const ip_address& a, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i) {
    if (a.bytes[i] != 0) return false;
  }
  return true;
}

// The IPv4 address an IPv6 address stands for, where the IPv6 form only carries it.
std::optional<ip_address> carried_v4(const ip_address& a) {
  const auto& b = a.bytes;
  bool mapped = zero(a, 0, 10) && b[10] == 0xFF && b[11] == 0xFF;                           // ::ffff:0:0/96
  bool translated = zero(a, 0, 8) && b[8] == 0xFF && b[9] == 0xFF && zero(a, 10, 12);       // ::ffff:0:0:0/96
  bool nat64 = b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && zero(a, 4, 12);  // 64:ff9b::/96
  if (mapped || translated || nat64) return embedded_v4(a, 12);
  if (b[0] == 0x20 && b[1] == 0x02) return embedded_v4(a, 2);  // 6to4 2002:AABB:CCDD::/48
  return std::nullopt;
}

address_class classify_v4(const ip_address& a) {
  static const auto table = parsed(ipv4_ranges);
  return lookup(table, a, address_class::global);
}

address_class classify_v6(const ip_address& a) {
  static const auto table = parsed(ipv6_ranges);
  bool compatible = zero(a, 0, 12);  // ::/96, which also holds :: and ::1
  if (compatible && zero(a, 12, 15) && a.bytes[15] <= 1) return lookup(table, a, address_class::reserved);
  if (auto v4 = carried_v4(a)) return classify_v4(*v4);
  if (compatible) {
    // IPv4-compatible ::a.b.c.d is deprecated: it names no reachable host even when public.
    address_class c = classify_v4(embedded_v4(a, 12));
    return c == address_class::global ? address_class::reserved : c;
  }
  return lookup(table, a, address_class::reserved);
}

bool valid_host_name(std::string_view h) {
  if (h.empty() || h.size() > 253) return false;
  for (char c : h) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::optional<std::uint16_t> parse_port(std::string_view p) {
  if (p.empty() || p.size() > 5) return std::nullopt;
  unsigned v = 0;
  for (char c : p) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v == 0 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

result<allow_rule> address_port_rule(const ip_address& a, std::string_view port_text, std::string_view entry) {
  auto port = parse_port(port_text);
  if (!port) return fail(api_error::invalid_allow_rule, "\"" + std::string(entry) + "\": the port must be 1-65535");
  allow_rule r;
  r.kind = allow_rule::kind_t::address_port;
  r.network = ip_network{a, static_cast<unsigned>(a.size() * 8)};
  r.port = *port;
  return r;
}

result<allow_rule> parse_rule(std::string_view e) {
  if (!e.empty() && e.front() == '[') {
    std::size_t close = e.find("]:");
    auto a = close == std::string_view::npos ? std::nullopt : parse_ipv6(e.substr(1, close - 1));
    if (!a) return fail(api_error::invalid_allow_rule, "\"" + std::string(e) + "\": write an IPv6 address with a port as [::1]:8080");
    return address_port_rule(*a, e.substr(close + 2), e);
  }
  if (e.find('/') != std::string_view::npos || parse_ipv4_strict(e) || parse_ipv6(e)) {
    auto net = parse_ip_network(e);
    if (!net) return tl::unexpected(net.error());
    return allow_rule{allow_rule::kind_t::network, *net, {}, 0};
  }
  std::size_t colon = e.rfind(':');
  if (colon == std::string_view::npos) {
    return fail(api_error::invalid_allow_rule, "\"" + std::string(e) + "\": a host name needs a port (name:port), "
                "or write an address or CIDR block");
  }
  std::string_view host = e.substr(0, colon);
  if (auto a = parse_ipv4_strict(host)) return address_port_rule(*a, e.substr(colon + 1), e);
  std::string lower = ascii_lower(host);
  auto port = parse_port(e.substr(colon + 1));
  if (!valid_host_name(lower) || !port) {
    return fail(api_error::invalid_allow_rule, "\"" + std::string(e) + "\" is not a CIDR block, address, address:port or name:port");
  }
  return allow_rule{allow_rule::kind_t::name_port, {}, std::move(lower), *port};
}

bool rule_allows(const allow_rule& r, const ip_address& a, std::uint16_t port, std::string_view host) {
  switch (r.kind) {
    case allow_rule::kind_t::network: return r.network.contains(a);
    case allow_rule::kind_t::address_port: return r.network.base == a && r.port == port;
    case allow_rule::kind_t::name_port: return r.host == host && r.port == port;
  }
  return false;
}

}  // namespace

std::string_view to_string(address_class c) {
  switch (c) {
    case address_class::global: return "global";
    case address_class::unspecified: return "unspecified";
    case address_class::loopback: return "loopback";
    case address_class::private_use: return "private";
    case address_class::shared: return "shared (carrier-grade NAT)";
    case address_class::link_local: return "link-local";
    case address_class::metadata: return "cloud metadata";
    case address_class::multicast: return "multicast";
    case address_class::broadcast: return "broadcast";
    case address_class::reserved: return "reserved";
    case address_class::documentation: return "documentation";
    case address_class::benchmarking: return "benchmarking";
    case address_class::protocol_assignments: return "IETF protocol assignments";
    case address_class::unique_local: return "unique local";
    case address_class::site_local: return "site-local";
    case address_class::teredo: return "Teredo";
  }
  return "reserved";
}

address_class classify(const ip_address& a) { return a.is_v4() ? classify_v4(a) : classify_v6(a); }

result<address_allow_list> address_allow_list::parse(std::string_view text) {
  address_allow_list list;
  std::size_t i = 0;
  auto separator = [](char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (i < text.size()) {
    while (i < text.size() && separator(text[i])) ++i;
    std::size_t start = i;
    while (i < text.size() && !separator(text[i])) ++i;
    if (start == i) break;
    auto rule = parse_rule(text.substr(start, i - start));
    if (!rule) return tl::unexpected(rule.error());
    list.rules.push_back(std::move(*rule));
  }
  return list;
}

bool address_allow_list::allows(const ip_address& a, std::uint16_t port, std::string_view host) const {
  for (const auto& r : rules) {
    if (rule_allows(r, a, port, host)) return true;
  }
  return false;
}

std::optional<address_class> refused_address(const ip_address& a, std::uint16_t port, std::string_view host,
                                             const address_allow_list& allow) {
  if (allow.allows(a, port, host)) return std::nullopt;
  address_class c = classify(a);
  if (c == address_class::global) return std::nullopt;
  return c;
}

}  // namespace platform
