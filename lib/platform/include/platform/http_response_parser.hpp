#pragma once
// An HTTP/1.x response parser in the sans-I/O style: the connection feeds it bytes as they
// arrive, in pieces of any size, and reads the state. Content-Length, chunked and
// read-until-close bodies; interim 1xx responses are skipped. Every part is bounded, so a
// hostile server costs at most the limits. Rules: docs/http-executor.md.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace platform {

struct http_response {
  int status = 0;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;  // names as received, values trimmed
  std::string body;

  // The first header named `name` (without case), or nullopt.
  [[nodiscard]] std::optional<std::string_view> header(std::string_view name) const;
};

struct http_response_limits {
  std::size_t max_head_bytes = 64 * 1024;  // status line, header and trailer lines together
  std::size_t max_headers = 128;
  std::size_t max_body_bytes = 2 * 1024 * 1024;
};

class http_response_parser {
 public:
  enum class state { head, body, done, failed };
  // Why parsing failed; `body_too_large` and `head_too_large` are limits, not bad syntax.
  enum class failure { none, malformed, head_too_large, body_too_large, truncated, unsupported_transfer_encoding };

  // `no_body` for the answer to a HEAD request: no body follows whatever the headers say.
  explicit http_response_parser(http_response_limits limits = {}, bool no_body = false);

  // Consumes `bytes`; returns how many were used. Bytes after a complete response (or a
  // failure) are not used.
  std::size_t feed(std::string_view bytes);
  // The peer closed the connection: ends a read-until-close body, fails anything incomplete.
  void finish();

  [[nodiscard]] state current() const { return state_; }
  [[nodiscard]] bool done() const { return state_ == state::done; }
  [[nodiscard]] bool failed() const { return state_ == state::failed; }
  // The final (non-1xx) status line and headers have been read.
  [[nodiscard]] bool head_complete() const { return head_complete_; }
  [[nodiscard]] failure why() const { return failure_; }
  [[nodiscard]] const std::string& detail() const { return detail_; }
  [[nodiscard]] const http_response& response() const { return response_; }
  http_response take() { return std::move(response_); }

 private:
  enum class step { status_line, header_line, fixed_body, chunk_size, chunk_data, chunk_end, trailer_line, until_close };

  std::size_t feed_line(std::string_view bytes);
  std::size_t feed_body(std::string_view bytes);
  void on_line(std::string_view line);
  void on_status_line(std::string_view line);
  void on_header_line(std::string_view line);
  void on_head_end();
  void choose_body();
  void on_chunk_size(std::string_view line);
  bool append_body(std::string_view bytes);
  void fail(failure f, std::string detail);

  http_response_limits limits_;
  bool no_body_;
  state state_ = state::head;
  step step_ = step::status_line;
  failure failure_ = failure::none;
  std::string detail_;
  bool head_complete_ = false;
  std::string line_;                 // the partial line being read
  std::size_t head_bytes_ = 0;       // status, header and trailer bytes so far
  std::size_t remaining_ = 0;        // of a fixed body or chunk
  http_response response_;
};

std::string_view to_string(http_response_parser::failure f);

}  // namespace platform
