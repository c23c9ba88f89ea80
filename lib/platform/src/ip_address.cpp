// IP address text forms. The IPv4 reader follows inet_aton (and the WHATWG URL host parser),
// because that is how the system resolver would read a numeric host we failed to recognise.
#include "platform/ip_address.hpp"

#include <vector>

#include "platform/api_error.hpp"
#include "platform/ascii.hpp"
#include "text_split.hpp"

namespace platform {
namespace {

constexpr std::uint64_t max_ipv4 = 0xFFFFFFFFull;


// One inet_aton part; values beyond 32 bits are refused early so nothing overflows.
std::optional<std::uint64_t> ipv4_part(std::string_view p) {
  if (p.empty()) return std::nullopt;
  unsigned base = 10;
  if (p.size() >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p.remove_prefix(2);
    if (p.empty()) return 0;  // "0x" reads as 0, as inet_aton and browsers do
  } else if (p.size() >= 2 && p[0] == '0') {
    base = 8;
    p.remove_prefix(1);
  }
  std::uint64_t v = 0;
  for (char c : p) {
    int d = hex_digit_value(c);
    if (d < 0 || static_cast<unsigned>(d) >= base) return std::nullopt;
    v = v * base + static_cast<unsigned>(d);
    if (v > max_ipv4) return std::nullopt;
  }
  return v;
}

void write_u16(std::array<std::uint8_t, 16>& b, std::size_t group, unsigned v) {
  b[group * 2] = static_cast<std::uint8_t>(v >> 8);
  b[group * 2 + 1] = static_cast<std::uint8_t>(v & 0xFF);
}

unsigned read_u16(const std::array<std::uint8_t, 16>& b, std::size_t group) {
  return static_cast<unsigned>(b[group * 2]) << 8 | b[group * 2 + 1];
}

// Groups of one side of "::" (or of the whole address); a dotted quad may end the last side.
std::optional<std::vector<unsigned>> ipv6_groups(std::string_view side, bool may_end_in_ipv4) {
  std::vector<unsigned> groups;
  if (side.empty()) return groups;
  auto parts = split_fields(side, ':');
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (i + 1 == parts.size() && may_end_in_ipv4 && p.find('.') != std::string_view::npos) {
      auto v4 = parse_ipv4_strict(p);
      if (!v4) return std::nullopt;
      groups.push_back(read_u16(v4->bytes, 0));
      groups.push_back(read_u16(v4->bytes, 1));
      continue;
    }
    if (p.empty() || p.size() > 4) return std::nullopt;
    unsigned v = 0;
    for (char c : p) {
      int d = hex_digit_value(c);
      if (d < 0) return std::nullopt;
      v = v * 16 + static_cast<unsigned>(d);
    }
    groups.push_back(v);
  }
  return groups;
}

std::string hex_group(unsigned v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  bool started = false;
  for (int shift = 12; shift >= 0; shift -= 4) {
    unsigned d = (v >> shift) & 0xF;
    if (d != 0 || started || shift == 0) {
      out += digits[d];
      started = true;
    }
  }
  return out;
}

bool is_ipv4_mapped(const ip_address& a) {
  for (std::size_t i = 0; i < 10; ++i) {
    if (a.bytes[i] != 0) return false;
  }
  return a.bytes[10] == 0xFF && a.bytes[11] == 0xFF;
}

std::string ipv6_text(const ip_address& a) {
  if (is_ipv4_mapped(a)) {
    return "::ffff:" + to_string(ip_address::v4(static_cast<std::uint32_t>(a.bytes[12]) << 24 |
                                                static_cast<std::uint32_t>(a.bytes[13]) << 16 |
                                                static_cast<std::uint32_t>(a.bytes[14]) << 8 | a.bytes[15]));
  }
  // RFC 5952: compress the longest run of two or more zero groups, the first one on a tie.
  std::size_t best_at = 8, best_len = 0;
  for (std::size_t i = 0; i < 8;) {
    std::size_t j = i;
    while (j < 8 && read_u16(a.bytes, j) == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best_at = i;
      best_len = j - i;
    }
    i = j == i ? i + 1 : j;
  }
  std::string out;
  for (std::size_t i = 0; i < 8; ++i) {
    if (i == best_at) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    out += hex_group(read_u16(a.bytes, i));
  }
  return out;
}

}  // namespace

ip_address ip_address::v4(std::uint32_t host_order) {
  ip_address a;
  a.family = family_t::v4;
  a.bytes[0] = static_cast<std::uint8_t>(host_order >> 24);
  a.bytes[1] = static_cast<std::uint8_t>(host_order >> 16);
  a.bytes[2] = static_cast<std::uint8_t>(host_order >> 8);
  a.bytes[3] = static_cast<std::uint8_t>(host_order);
  return a;
}

ip_address ip_address::v6(const std::array<std::uint8_t, 16>& bytes) {
  ip_address a;
  a.family = family_t::v6;
  a.bytes = bytes;
  return a;
}

std::optional<ip_address> parse_ipv4(std::string_view text) {
  auto parts = split_fields(text, '.');
  if (parts.size() > 4) return std::nullopt;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    auto v = ipv4_part(parts[i]);
    if (!v) return std::nullopt;
    bool last = i + 1 == parts.size();
    // Every part but the last is one byte; the last fills what is left (127.1 is 127.0.0.1).
    std::uint64_t room = last ? (max_ipv4 >> (8 * i)) : 0xFF;
    if (*v > room) return std::nullopt;
    value = last ? (value << (8 * (4 - i))) | *v : (value << 8) | *v;
  }
  return ip_address::v4(static_cast<std::uint32_t>(value));
}

std::optional<ip_address> parse_ipv4_strict(std::string_view text) {
  auto parts = split_fields(text, '.');
  if (parts.size() != 4) return std::nullopt;
  std::uint32_t value = 0;
  for (auto p : parts) {
    if (p.empty() || p.size() > 3 || (p.size() > 1 && p[0] == '0')) return std::nullopt;
    unsigned v = 0;
    for (char c : p) {
      if (!is_ascii_digit(c)) return std::nullopt;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v > 255) return std::nullopt;
    value = value << 8 | v;
  }
  return ip_address::v4(value);
}

std::optional<ip_address> parse_ipv6(std::string_view text) {
  if (text.size() < 2 || text.size() > 45) return std::nullopt;
  std::size_t gap = text.find("::");
  bool has_gap = gap != std::string_view::npos;
  if (has_gap && text.find("::", gap + 1) != std::string_view::npos) return std::nullopt;
  std::string_view head = has_gap ? text.substr(0, gap) : text;
  std::string_view tail = has_gap ? text.substr(gap + 2) : std::string_view{};
  auto left = ipv6_groups(head, !has_gap);
  auto right = ipv6_groups(tail, true);
  if (!left || !right) return std::nullopt;
  std::size_t n = left->size() + right->size();
  if (has_gap ? n > 7 : n != 8) return std::nullopt;
  std::array<std::uint8_t, 16> b{};
  for (std::size_t i = 0; i < left->size(); ++i) write_u16(b, i, (*left)[i]);
  for (std::size_t i = 0; i < right->size(); ++i) write_u16(b, 8 - right->size() + i, (*right)[i]);
  return ip_address::v6(b);
}

std::string to_string(const ip_address& a) {
  if (!a.is_v4()) return ipv6_text(a);
  return std::to_string(a.bytes[0]) + "." + std::to_string(a.bytes[1]) + "." + std::to_string(a.bytes[2]) + "." +
         std::to_string(a.bytes[3]);
}

bool ip_network::contains(const ip_address& a) const {
  if (a.family != base.family) return false;
  unsigned full = prefix / 8, rest = prefix % 8;
  for (unsigned i = 0; i < full; ++i) {
    if (a.bytes[i] != base.bytes[i]) return false;
  }
  if (rest == 0) return true;
  auto mask = static_cast<std::uint8_t>(0xFF << (8 - rest));
  return (a.bytes[full] & mask) == base.bytes[full];
}

result<ip_network> parse_ip_network(std::string_view text) {
  std::size_t slash = text.find('/');
  std::string_view addr_text = text.substr(0, slash);
  auto addr = parse_ipv4_strict(addr_text);
  if (!addr) addr = parse_ipv6(addr_text);
  if (!addr) return fail(api_error::invalid_network, "not an IPv4 or IPv6 address: \"" + std::string(addr_text) + "\"");
  unsigned bits = static_cast<unsigned>(addr->size() * 8);
  unsigned prefix = bits;
  if (slash != std::string_view::npos) {
    std::string_view p = text.substr(slash + 1);
    if (p.empty() || p.size() > 3) return fail(api_error::invalid_network, "the prefix length after / must be a number");
    prefix = 0;
    for (char c : p) {
      if (!is_ascii_digit(c)) return fail(api_error::invalid_network, "the prefix length after / must be a number");
      prefix = prefix * 10 + static_cast<unsigned>(c - '0');
    }
    if (prefix > bits) return fail(api_error::invalid_network, "the prefix length is longer than the address");
  }
  ip_network n{*addr, prefix};
  ip_network masked{*addr, 0};
  masked.base.bytes = {};
  for (unsigned i = 0; i < prefix; ++i) {
    auto bit = static_cast<std::uint8_t>(0x80 >> (i % 8));
    masked.base.bytes[i / 8] |= static_cast<std::uint8_t>(addr->bytes[i / 8] & bit);
  }
  masked.prefix = prefix;
  // A set host bit usually means a typo in the prefix; refuse rather than guess.
  if (masked.base != n.base) {
    return fail(api_error::invalid_network, "host bits are set: write " + to_string(masked));
  }
  return n;
}

std::string to_string(const ip_network& n) { return to_string(n.base) + "/" + std::to_string(n.prefix); }

}  // namespace platform
