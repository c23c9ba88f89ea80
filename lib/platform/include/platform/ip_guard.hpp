#pragma once
// The address guard of HTTP actions (design notes "HTTP action limits"): which resolved
// addresses a custom tool may connect to. Only globally routable unicast passes; loopback,
// private, link-local, CGNAT, multicast, metadata, reserved and documentation ranges are
// refused, also when an IPv6 address embeds such an IPv4 address (mapped, compatible, NAT64,
// 6to4). An operator allow-list, empty by default, lets named exceptions through (tests reach
// their own mock provider on 127.0.0.1 with it). Rules and ranges: docs/http-executor.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/ip_address.hpp"

namespace platform {

enum class address_class {
  global,               // the only class allowed without an allow-list entry
  unspecified,          // 0.0.0.0/8, ::
  loopback,             // 127/8, ::1
  private_use,          // 10/8, 172.16/12, 192.168/16
  shared,               // 100.64/10 (carrier-grade NAT)
  link_local,           // 169.254/16, fe80::/10
  metadata,             // cloud instance metadata: 169.254.169.254, fd00:ec2::254, ...
  multicast,            // 224/4, ff00::/8
  broadcast,            // 255.255.255.255
  reserved,             // 240/4, 192.88.99/24, IPv6 outside 2000::/3, discard-only, ...
  documentation,        // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
  benchmarking,         // 198.18/15, 2001:2::/48
  protocol_assignments, // 192.0.0/24, 2001::/23 (the rest of it)
  unique_local,         // fc00::/7
  site_local,           // fec0::/10 (deprecated, still routed inside some sites)
  teredo,               // 2001::/32: the embedded addresses are obfuscated, never trusted
};

std::string_view to_string(address_class c);

// The class of `a`; an IPv6 address carrying an IPv4 address (::ffff:a.b.c.d, ::a.b.c.d,
// 64:ff9b::/96, 2002::/16) gets the class of the IPv4 address it carries.
address_class classify(const ip_address& a);

// One operator exception: a network (any port), an address with a port, or a host name with
// a port (every address the name resolves to, on that port only).
struct allow_rule {
  enum class kind_t { network, address_port, name_port };
  kind_t kind = kind_t::network;
  ip_network network;     // network; address_port uses it as a single address
  std::string host;       // name_port: lower-case host name
  std::uint16_t port = 0; // address_port and name_port
};

struct address_allow_list {
  std::vector<allow_rule> rules;

  // Entries separated by commas or white space: "127.0.0.0/8", "::1", "127.0.0.1:8080",
  // "[::1]:8080", "mock.internal:8443". An empty text gives an empty list.
  static result<address_allow_list> parse(std::string_view text);

  [[nodiscard]] bool empty() const { return rules.empty(); }
  // `host` is the URL's host (lower case; canonical text for IP literals).
  [[nodiscard]] bool allows(const ip_address& a, std::uint16_t port, std::string_view host) const;
};

// nullopt when the executor may connect to `a` on `port` for `host`; else the class that
// refused it.
std::optional<address_class> refused_address(const ip_address& a, std::uint16_t port, std::string_view host,
                                             const address_allow_list& allow);

}  // namespace platform
