#include "platform/internet_door.hpp"

#include "platform/api_error.hpp"
#include "platform/url.hpp"

namespace platform {
namespace {

tl::unexpected<error> refused(std::string message) { return fail(api_error::egress_refused, std::move(message)); }

bool clean_line(std::string_view line) {
  for (char ch : line) {
    auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

result<connect_target> parse_connect_head(std::string_view head) {
  if (head.size() < 4 || head.substr(head.size() - 4) != "\r\n\r\n") return refused("the request head is incomplete");
  std::string_view rest = head.substr(0, head.size() - 2);  // every line now ends in CRLF
  std::string_view request_line;
  bool first = true;
  while (!rest.empty()) {
    auto end = rest.find("\r\n");
    if (end == std::string_view::npos) return refused("the request head has a bare CR or LF");
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end + 2);
    if (!clean_line(line)) return refused("the request head has a bare CR or LF or a control byte");
    if (first) request_line = line;
    else if (line.empty() || line.find(':') == std::string_view::npos || line.front() == ' ' || line.front() == '\t') {
      return refused("the request head has a malformed header line");
    }
    first = false;
  }
  auto sp1 = request_line.find(' ');
  auto sp2 = sp1 == std::string_view::npos ? sp1 : request_line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || request_line.find(' ', sp2 + 1) != std::string_view::npos) {
    return refused("the request line is not \"METHOD target HTTP/1.x\"");
  }
  std::string_view method = request_line.substr(0, sp1);
  std::string_view authority = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = request_line.substr(sp2 + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return refused("the request is not HTTP/1.x");
  if (method != "CONNECT") {
    return refused("the sandbox reaches the internet through CONNECT only (https:// URLs); a plain http:// request is not relayed");
  }
  if (authority.empty() || authority.find_first_of("/?#@") != std::string_view::npos) {
    return refused("CONNECT takes host:port, without a path or userinfo");
  }
  // The port must be explicit: "host:443", "[v6]:443".
  auto colon = authority.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == authority.size() || authority.back() == ']') {
    return refused("CONNECT takes host:port with an explicit port");
  }
  auto u = parse_url("https://" + std::string(authority) + "/");
  if (!u) return refused("CONNECT names no valid host: " + u.error().message);
  if (u->port == 0) return refused("CONNECT names port 0");
  return connect_target{u->host, u->port, u->address()};
}

result<std::vector<ip_address>> internet_door_addresses(const connect_target& target,
                                                        const std::vector<ip_address>& resolved,
                                                        const address_allow_list& allow) {
  if (resolved.empty()) return refused("the host " + target.host + " resolves to no address");
  bool usual_port = target.port == 443 || target.port == 80;
  std::vector<ip_address> out;
  std::string why;
  for (const auto& a : resolved) {
    if (!usual_port && !allow.allows(a, target.port, target.host)) {
      if (why.empty()) why = "the sandbox's internet door connects to ports 443 and 80 only, not " + std::to_string(target.port);
      continue;
    }
    if (auto no = refused_address(a, target.port, target.host, allow)) {
      if (why.empty()) {
        why = "the sandbox's internet door does not connect to " + std::string(to_string(*no)) + " addresses (" +
              to_string(a) + ")";
      }
      continue;
    }
    out.push_back(a);
  }
  if (out.empty()) return refused(why);
  return out;
}

std::vector<std::string> internet_door_env(std::string_view door_url) {
  std::string url(door_url);
  return {"HTTPS_PROXY=" + url, "https_proxy=" + url, "HTTP_PROXY=" + url, "http_proxy=" + url,
          "NO_PROXY=127.0.0.1,localhost,::1", "no_proxy=127.0.0.1,localhost,::1"};
}

}  // namespace platform
