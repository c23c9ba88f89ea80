// The IP text readers, the address classifier and the allow-list reader on arbitrary bytes.
// Contract: never crashes; canonical text reads back to the same address; an IPv6 address
// that carries an IPv4 address (mapped) is classified exactly like that IPv4 address; only
// 2000::/3 or a carried public IPv4 address is global in IPv6.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "platform/ip_guard.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_text(std::string_view text) {
  if (auto a = platform::parse_ipv4(text)) {
    auto strict = platform::parse_ipv4_strict(platform::to_string(*a));
    check(strict && *strict == *a);
    (void)platform::classify(*a);
  }
  if (auto a = platform::parse_ipv6(text)) {
    auto again = platform::parse_ipv6(platform::to_string(*a));
    check(again && *again == *a);
    (void)platform::classify(*a);
  }
  if (auto n = platform::parse_ip_network(text)) check(n->contains(n->base));
  if (auto list = platform::address_allow_list::parse(text)) {
    (void)list->allows(platform::ip_address::v4(0x7F000001), 80, "localhost");
  }
}

void check_bytes(const uint8_t* data) {
  std::array<std::uint8_t, 16> b{};
  std::memcpy(b.data(), data, 16);
  auto v6 = platform::ip_address::v6(b);
  auto cls = platform::classify(v6);
  auto v4 = platform::ip_address::v4(static_cast<std::uint32_t>(data[0]) << 24 | static_cast<std::uint32_t>(data[1]) << 16 |
                                     static_cast<std::uint32_t>(data[2]) << 8 | data[3]);
  std::array<std::uint8_t, 16> mapped{};
  mapped[10] = mapped[11] = 0xFF;
  std::memcpy(mapped.data() + 12, data, 4);
  check(platform::classify(platform::ip_address::v6(mapped)) == platform::classify(v4));
  bool unicast_block = (b[0] & 0xE0) == 0x20;
  bool may_carry_v4 = std::all_of(b.begin(), b.begin() + 8, [](auto x) { return x == 0; }) ||
                      (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B);
  if (cls == platform::address_class::global) check(unicast_block || may_carry_v4);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check_text(std::string_view(reinterpret_cast<const char*>(data), size));
  if (size >= 16) check_bytes(data);
  return 0;
}
