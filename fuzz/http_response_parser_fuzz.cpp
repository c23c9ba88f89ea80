// The HTTP response parser on arbitrary bytes. Contract: never crashes; the body never
// exceeds its limit; feeding the bytes in two pieces (split where the first byte says) or one
// byte at a time gives the same result as feeding them at once.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "platform/http_response_parser.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

using platform::http_response_parser;

http_response_parser run(std::string_view wire, std::size_t split, bool close, const platform::http_response_limits& limits,
                         bool no_body) {
  http_response_parser p(limits, no_body);
  for (std::string_view piece : {wire.substr(0, split), wire.substr(split)}) {
    while (!piece.empty() && !p.done() && !p.failed()) {
      std::size_t used = p.feed(piece);
      check(used <= piece.size());
      if (used == 0) break;
      piece.remove_prefix(used);
    }
  }
  if (close) p.finish();
  check(p.response().body.size() <= limits.max_body_bytes);
  return p;
}

bool same(const http_response_parser& a, const http_response_parser& b) {
  return a.current() == b.current() && a.why() == b.why() && a.head_complete() == b.head_complete() &&
         a.response().status == b.response().status && a.response().body == b.response().body &&
         a.response().headers == b.response().headers;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  bool close = data[0] & 1;
  bool no_body = data[0] & 2;
  platform::http_response_limits limits{.max_head_bytes = 256u + data[1] * 16u, .max_headers = 1u + data[1] % 16,
                                        .max_body_bytes = 1u + data[1] * 64u};
  std::string_view wire(reinterpret_cast<const char*>(data) + 2, size - 2);
  auto whole = run(wire, wire.size(), close, limits, no_body);
  auto split = run(wire, wire.empty() ? 0 : data[0] % wire.size(), close, limits, no_body);
  check(same(whole, split));
  if (wire.size() <= 512) {
    http_response_parser bytewise(limits, no_body);
    for (std::size_t i = 0; i < wire.size() && !bytewise.done() && !bytewise.failed(); ++i) bytewise.feed(wire.substr(i, 1));
    if (close) bytewise.finish();
    check(same(whole, bytewise));
  }
  return 0;
}
