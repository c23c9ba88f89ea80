// The egress head reader and rewrite on arbitrary bytes. Contract: never crashes; the reader
// gives the same answer however the bytes are cut, completes only on a head ending in CRLF CRLF
// within its limit, and keeps every byte after the head; a rewrite that succeeds is one plain
// head (CRLF lines only, one Host line, exactly one `Connection: close` line, at the end) whose
// target starts with path_prefix + "/", and that never carries the placeholder; its rewrite
// again (no prefix) is itself; no error message carries the placeholder or the secret.
// Input: byte 0 picks the rules, byte 1 where the bytes are cut, the rest is the wire.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/ascii.hpp"
#include "platform/egress_head.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

using platform::egress_head_reader;
using platform::egress_head_rules;

constexpr std::string_view placeholder = "PH-0123456789abcdef";
constexpr std::string_view secret = "sk-real-SECRET-value";
constexpr std::array<std::string_view, 3> prefixes{"", "/v1", "/api/v2"};

egress_head_reader read(std::string_view wire, std::size_t cut, std::size_t limit) {
  egress_head_reader r(limit);
  r.feed(wire.substr(0, cut));
  r.feed(wire.substr(cut));
  if (r.current() == egress_head_reader::state::complete) {
    check(r.head().ends_with("\r\n\r\n"));
    check(r.head().size() <= limit);
    check(r.head().find("\r\n\r\n") == r.head().size() - 4);  // the first CRLF CRLF
    check(std::string(r.head()) + std::string(r.rest()) == wire);
  } else {
    check(r.head().empty() && r.rest().empty());
  }
  return r;
}

bool same(const egress_head_reader& a, const egress_head_reader& b) {
  return a.current() == b.current() && a.head() == b.head() && a.rest() == b.rest();
}

void check_output(const std::string& out, const egress_head_rules& rules) {
  check(out.ends_with("\r\n\r\n"));
  if (!rules.placeholder.empty()) check(out.find(rules.placeholder) == std::string::npos);
  std::size_t closes = 0, hosts = 0, lines = 0;
  std::string_view last;
  std::size_t at = 0;
  while (true) {
    std::size_t end = out.find("\r\n", at);
    check(end != std::string::npos);
    std::string_view line = std::string_view(out).substr(at, end - at);
    check(line.find_first_of("\r\n") == std::string_view::npos);
    if (line.empty()) {
      check(end + 2 == out.size());
      break;
    }
    if (lines == 0) {
      std::size_t sp = line.find(' ');
      check(sp != std::string_view::npos);
      check(line.substr(sp + 1).starts_with(rules.path_prefix + "/"));
    } else {
      closes += line == "Connection: close";
      hosts += platform::istarts_with(line, "host:");
      check(!platform::istarts_with(line, "connection:") || line == "Connection: close");
    }
    last = line;
    ++lines;
    at = end + 2;
  }
  check(closes == 1 && last == "Connection: close");
  check(hosts == 1);
}

void check_error(const platform::error& e) {
  check(e.message.find(placeholder) == std::string::npos);
  check(e.message.find(secret) == std::string::npos);
  check(!e.message.empty());
}

void rewrite(std::string_view head, const egress_head_rules& rules) {
  auto out = platform::rewrite_egress_head(head, rules);
  // The framing the proxy relays by comes with the very same head, or the same refusal.
  auto request = platform::rewrite_egress_request(head, rules);
  check(out.has_value() == request.has_value());
  if (!out) {
    check_error(out.error());
    return;
  }
  check(request->head == *out);
  check_output(*out, rules);
  // What the proxy sends is a head it would send as it is (a Host, a Connection: close, values
  // trimmed, the secret in place of the placeholder): its own rewrite without a prefix, unless
  // the added Host and Connection lines take it over the header limit.
  std::size_t header_lines = 0;
  for (std::size_t i = out->find("\r\n"); i + 4 < out->size(); i = out->find("\r\n", i + 2)) ++header_lines;
  if (header_lines > 100) return;
  egress_head_rules again = rules;
  again.path_prefix.clear();
  again.max_head_bytes = out->size();
  auto twice = platform::rewrite_egress_head(*out, again);
  check(twice.has_value() && *twice == *out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  egress_head_rules rules{.placeholder = (data[0] & 1) ? std::string() : std::string(placeholder),
                          .secret = std::string(secret),
                          .upstream_host = (data[0] & 2) ? "127.0.0.1:9000" : "api.example.com",
                          .path_prefix = std::string(prefixes[(data[0] >> 2) % prefixes.size()]),
                          .max_head_bytes = (data[0] & 16) ? 64u * 1024u : 256u};
  std::string_view wire(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::size_t limit = (data[0] & 32) ? 64u * 1024u : 64u + data[1];
  auto whole = read(wire, wire.size(), limit);
  auto split = read(wire, wire.empty() ? 0 : data[1] % (wire.size() + 1), limit);
  check(same(whole, split));
  if (wire.size() <= 512) {
    egress_head_reader bytewise(limit);
    for (std::size_t i = 0; i < wire.size(); ++i) bytewise.feed(wire.substr(i, 1));
    check(same(whole, bytewise));
  }
  if (whole.current() == egress_head_reader::state::complete) rewrite(whole.head(), rules);
  rewrite(wire, rules);  // the rewrite takes any bytes, not only what the reader cut
  return 0;
}
