#pragma once
// The sandbox's internet door (issue 32, "Network: deny by default"): the one way from a jail to
// the public internet, for the tools that need it (WebFetch, add_packages' npm, a page the
// builder reads). Jailed processes get HTTPS_PROXY pointing at it; it takes one CONNECT per
// connection, resolves the host itself, and connects only to addresses the HTTP executor's
// address guard allows (ip_guard.hpp: no loopback, private, link-local or metadata address),
// on ports 443 and 80, or what the operator's allow-list names (tests reach a stand-in on
// 127.0.0.1 with it). After the CONNECT it relays bytes and reads nothing: TLS goes end to end,
// so the door holds no credential and sees no content. Sans-I/O: the worker resolves, connects
// and relays.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/ip_address.hpp"
#include "platform/ip_guard.hpp"

namespace platform {

struct connect_target {
  std::string host;  // lower-case name, dotted quad, or IPv6 text without brackets
  std::uint16_t port = 0;
  std::optional<ip_address> address;  // the host is an IP literal: nothing to resolve
};

// The request head (CRLF CRLF included, as egress_head_reader gives it) of a connection to the
// door: "CONNECT host:port HTTP/1.1" and header lines, which the door does not use. Refused,
// `egress_refused`: another method (the door speaks CONNECT only: a plain http:// request
// through it is refused with a sentence saying so), an authority without a port or with
// userinfo, a host the URL rules refuse (url.hpp), bare CR or LF, control bytes.
result<connect_target> parse_connect_head(std::string_view head);

// The addresses of `resolved` the door may connect to for `target`, in order. Refused,
// `egress_refused`, with the class of the first refused address when none is allowed (nothing
// resolved: the same code, saying so), or when the port is neither 443 nor 80 and the
// allow-list does not name it.
result<std::vector<ip_address>> internet_door_addresses(const connect_target& target,
                                                        const std::vector<ip_address>& resolved,
                                                        const address_allow_list& allow);

// The variables every jail with an internet door gets: HTTPS_PROXY and HTTP_PROXY (both
// spellings) to the door, NO_PROXY for the jail's own doors on loopback.
std::vector<std::string> internet_door_env(std::string_view door_url);

}  // namespace platform
