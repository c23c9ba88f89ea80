// The internet door's CONNECT reader on arbitrary bytes. Contract: never crashes; a head it
// accepts is a CONNECT line whose target has a non-zero port and a host the URL rules accept
// (no '/', '@', whitespace or control byte in it), and reading the same head again gives the
// same target; the guard never lets a loopback, private or link-local address through without
// an allow-list. Input: the wire, then the guard is asked about addresses built from its bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/internet_door.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view wire(reinterpret_cast<const char*>(data), size);
  auto t = platform::parse_connect_head(wire);
  if (t) {
    check(wire.starts_with("CONNECT "));
    check(t->port != 0 && !t->host.empty());
    for (char c : t->host) check(static_cast<unsigned char>(c) > 0x20 && c != '/' && c != '@' && c != 0x7f);
    auto again = platform::parse_connect_head(wire);
    check(again && again->host == t->host && again->port == t->port && again->address == t->address);
  }
  if (size >= 4) {
    platform::connect_target target{"example.com", static_cast<std::uint16_t>(data[0] << 8 | data[1]), std::nullopt};
    auto a = platform::ip_address::v4(static_cast<std::uint32_t>(data[0]) << 24 | data[1] << 16 | data[2] << 8 | data[3]);
    auto allowed = platform::internet_door_addresses(target, {a}, {});
    if (allowed) {
      check(target.port == 443 || target.port == 80);
      check(data[0] != 127 && data[0] != 10 && !(data[0] == 192 && data[1] == 168) && !(data[0] == 169 && data[1] == 254));
    }
  }
  return 0;
}
