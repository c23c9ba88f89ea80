#pragma once
// The egress request head: the first request head of a connection from a sandboxed agent CLI to
// its model provider, as the worker's egress proxy reads and rewrites it. The sandbox has no
// network and holds only a placeholder credential; the proxy swaps the placeholder for the real
// API key (or OAuth access token) in the credential headers on the way out, so the secret never
// enters the sandbox. The proxy forces `Connection: close`, so after this one head it relays the
// rest of the bytes raw in both directions: this head is the only thing it has to understand,
// and anything in it that two HTTP parsers could read differently is refused, not repaired.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

struct egress_head_rules {
  // The credential value the sandbox holds: at least 16 bytes (so it cannot turn up in a request
  // by chance), visible ASCII. Empty: nothing is swapped (a provider reached without a key).
  std::string placeholder;
  // What replaces the placeholder upstream: visible ASCII, never in an error message.
  std::string secret;
  // The Host header sent upstream: "api.anthropic.com", "127.0.0.1:9000".
  std::string upstream_host;
  // Put in front of the request target: the upstream base URL's path, "" or "/v1" (starts with
  // '/', does not end with one).
  std::string path_prefix;
  std::size_t max_head_bytes = 64 * 1024;
};

// Reads the first request head of a connection, sans-I/O: the proxy feeds the bytes as they
// arrive, in pieces of any size. The head ends at the first CRLF CRLF; a head that does not end
// within `max_head_bytes` (the CRLF CRLF included) is too large, however the bytes were cut.
// A head of bare LF line ends never completes: the rewrite would refuse it anyway.
class egress_head_reader {
 public:
  explicit egress_head_reader(std::size_t max_head_bytes = 64 * 1024);

  enum class state { need_more, complete, too_large };

  // Takes `bytes`. Once complete, further bytes are kept after the head (rest()); once too
  // large, they are dropped.
  state feed(std::string_view bytes);

  [[nodiscard]] state current() const { return state_; }
  // The head with its final CRLF CRLF, once complete (empty before).
  [[nodiscard]] std::string_view head() const;
  // The bytes fed after the head (the start of the body), once complete (empty before).
  [[nodiscard]] std::string_view rest() const;

 private:
  std::size_t max_head_bytes_;
  state state_ = state::need_more;
  std::string buffer_;          // the head so far; once complete, the head and then the rest
  std::size_t head_size_ = 0;   // of buffer_, once complete
  std::size_t scanned_ = 0;     // bytes of buffer_ already searched for CRLF CRLF
};

// The head to send upstream for `head` (as egress_head_reader gives it, CRLF CRLF included):
// the request line with path_prefix put in front of the target; `Host: upstream_host`; the
// headers, values trimmed, with the hop-by-hop ones dropped (Connection and what it names,
// Keep-Alive, Proxy-Connection, Proxy-Authorization, Upgrade, TE); the placeholder replaced by
// the secret in the credential headers (Authorization, X-Api-Key, Api-Key, X-Goog-Api-Key);
// `Connection: close`. Refused, `egress_refused`: a head that is not a plain HTTP/1.x request of
// CRLF lines (bare CR or LF, control bytes, obs-fold, a header line without a token name), a
// method outside GET POST PUT PATCH DELETE HEAD OPTIONS, a target that is not origin-form or
// has dot segments (also percent-encoded), framing two parsers could read differently (Host or
// Content-Length twice, both Content-Length and Transfer-Encoding, a Transfer-Encoding other
// than chunked, a Connection option naming a framing header), more than 100 headers, and the
// placeholder anywhere but the value of a credential header. Malformed `rules`:
// `invalid_config`. No error message carries the secret, the placeholder or any header's value.
result<std::string> rewrite_egress_head(std::string_view head, const egress_head_rules& rules);

// The same rewrite, with how the request's body is framed, which the proxy must know to relay
// exactly that body: its Content-Length (0 without one), or none for a chunked body.
struct egress_request {
  std::string head;
  std::optional<std::uint64_t> content_length;
};
result<egress_request> rewrite_egress_request(std::string_view head, const egress_head_rules& rules);

}  // namespace platform
