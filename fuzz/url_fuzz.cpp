// The URL reader on arbitrary bytes, as a tool URL and as a redirect Location. Contract: never
// crashes; an accepted URL is http(s) with a host and a '/' target, has no byte that could
// break a request line, reads back to itself, and a host typed as a name is never one the
// system resolver would take for an IPv4 number.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "platform/url.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_url(const platform::url& u) {
  check(u.scheme == "http" || u.scheme == "https");
  check(!u.host.empty() && u.port != 0);
  check(!u.target.empty() && u.target.front() == '/');
  for (char c : u.text()) {
    auto b = static_cast<unsigned char>(c);
    check(b > 0x20 && b < 0x7F && c != '#');
  }
  switch (u.kind) {
    case platform::host_kind::name: check(!platform::parse_ipv4(u.host)); break;
    case platform::host_kind::ipv4: check(platform::parse_ipv4_strict(u.host).has_value()); break;
    case platform::host_kind::ipv6: check(platform::parse_ipv6(u.host).has_value()); break;
  }
  auto again = platform::parse_url(u.text());
  check(again && *again == u);
  (void)platform::host_in_domain(u, "example.com");
  (void)platform::host_in_domain(u, u.host);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto u = platform::parse_url(text)) check_url(*u);
  static const auto base = *platform::parse_url("https://api.example.com:8443/v1/items/list?page=2");
  if (auto r = platform::resolve_url(base, text)) check_url(*r);
  return 0;
}
