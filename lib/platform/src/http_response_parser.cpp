// HTTP/1.x response parsing (RFC 9112). Lines end in CRLF or a bare LF (servers in the wild
// send both); obs-fold, spaces before the colon and conflicting lengths are refused because
// those are where two parsers start to disagree about where a message ends.
#include "platform/http_response_parser.hpp"
#include "platform/ascii.hpp"

#include <algorithm>

namespace platform {
namespace {

constexpr std::size_t max_chunk_line = 4096;  // size plus extensions
constexpr std::size_t max_chunk_hex_digits = 15;


// Comma-separated list elements of every header named `name`, trimmed, empty ones dropped.
std::vector<std::string_view> list_values(const http_response& r, std::string_view name) {
  std::vector<std::string_view> out;
  for (const auto& [n, v] : r.headers) {
    if (!iequals(n, name)) continue;
    std::string_view rest = v;
    while (true) {
      std::size_t comma = rest.find(',');
      std::string_view item = trim_ows(rest.substr(0, comma));
      if (!item.empty()) out.push_back(item);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string_view> http_response::header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (iequals(n, name)) return std::string_view(v);
  }
  return std::nullopt;
}

std::string_view to_string(http_response_parser::failure f) {
  using F = http_response_parser::failure;
  switch (f) {
    case F::none: return "none";
    case F::malformed: return "malformed";
    case F::head_too_large: return "head_too_large";
    case F::body_too_large: return "body_too_large";
    case F::truncated: return "truncated";
    case F::unsupported_transfer_encoding: return "unsupported_transfer_encoding";
  }
  return "malformed";
}

http_response_parser::http_response_parser(http_response_limits limits, bool no_body)
    : limits_(limits), no_body_(no_body) {}

std::size_t http_response_parser::feed(std::string_view bytes) {
  std::size_t used = 0;
  while (used < bytes.size() && (state_ == state::head || state_ == state::body)) {
    std::string_view rest = bytes.substr(used);
    bool body_step = step_ == step::fixed_body || step_ == step::chunk_data || step_ == step::until_close;
    used += body_step ? feed_body(rest) : feed_line(rest);
  }
  return used;
}

void http_response_parser::finish() {
  if (state_ == state::body && step_ == step::until_close) {
    state_ = state::done;
    return;
  }
  if (state_ == state::head || state_ == state::body) fail(failure::truncated, "the connection closed before the response was complete");
}

std::size_t http_response_parser::feed_line(std::string_view bytes) {
  bool chunk_line = step_ == step::chunk_size || step_ == step::chunk_end;
  std::size_t nl = bytes.find('\n');
  std::size_t take = nl == std::string_view::npos ? bytes.size() : nl + 1;
  std::size_t piece = nl == std::string_view::npos ? bytes.size() : nl;
  if (chunk_line) {
    if (line_.size() + piece > max_chunk_line) {
      fail(failure::malformed, "a chunk size line is too long");
      return take;
    }
  } else {
    head_bytes_ += take;
    if (head_bytes_ > limits_.max_head_bytes) {
      fail(failure::head_too_large, "the response headers are larger than the limit");
      return take;
    }
  }
  line_.append(bytes.substr(0, piece));
  if (nl == std::string_view::npos) return take;
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  std::string line = std::move(line_);
  line_.clear();
  if (line.find('\r') != std::string::npos || line.find('\0') != std::string::npos) {
    fail(failure::malformed, "a header line contains a bare CR or a NUL byte");
    return take;
  }
  on_line(line);
  return take;
}

void http_response_parser::on_line(std::string_view line) {
  switch (step_) {
    case step::status_line: on_status_line(line); break;
    case step::header_line: on_header_line(line); break;
    case step::chunk_size: on_chunk_size(line); break;
    case step::chunk_end:
      if (!line.empty()) fail(failure::malformed, "chunk data is longer than its size");
      else step_ = step::chunk_size;
      break;
    case step::trailer_line:
      if (line.empty()) state_ = state::done;  // trailer fields are read and dropped
      break;
    default: break;
  }
}

void http_response_parser::on_status_line(std::string_view line) {
  // HTTP/1.x SP 3DIGIT [SP reason]
  bool ok = line.size() >= 12 && line.starts_with("HTTP/1.") && is_ascii_digit(line[7]) && line[8] == ' ' &&
            is_ascii_digit(line[9]) && is_ascii_digit(line[10]) && is_ascii_digit(line[11]) && (line.size() == 12 || line[12] == ' ');
  if (!ok) {
    fail(failure::malformed, "the response does not start with an HTTP/1.x status line");
    return;
  }
  int status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  if (status < 100 || status > 599) {
    fail(failure::malformed, "the status code is outside 100-599");
    return;
  }
  response_.status = status;
  response_.reason = std::string(line.size() > 13 ? line.substr(13, 128) : std::string_view{});
  step_ = step::header_line;
}

void http_response_parser::on_header_line(std::string_view line) {
  if (line.empty()) {
    on_head_end();
    return;
  }
  if (line.front() == ' ' || line.front() == '\t') {
    fail(failure::malformed, "folded header lines (obs-fold) are not accepted");
    return;
  }
  std::size_t colon = line.find(':');
  std::string_view name = line.substr(0, colon);
  if (colon == std::string_view::npos || name.empty() || !std::all_of(name.begin(), name.end(), is_token_char)) {
    fail(failure::malformed, "a header line is not `name: value`");
    return;
  }
  if (response_.headers.size() >= limits_.max_headers) {
    fail(failure::head_too_large, "the response has more headers than the limit");
    return;
  }
  response_.headers.emplace_back(std::string(name), std::string(trim_ows(line.substr(colon + 1))));
}

void http_response_parser::on_head_end() {
  if (response_.status >= 100 && response_.status < 200) {
    if (response_.status == 101) {
      fail(failure::malformed, "the server switched protocols, which was not asked for");
      return;
    }
    response_ = http_response{};  // an interim response: the real one follows
    step_ = step::status_line;
    return;
  }
  head_complete_ = true;
  choose_body();
}

// RFC 9112 section 6.3: the first rule that applies decides how the body is delimited.
void http_response_parser::choose_body() {
  int s = response_.status;
  if (no_body_ || s == 204 || s == 304) {
    state_ = state::done;
    return;
  }
  auto codings = list_values(response_, "transfer-encoding");
  if (!codings.empty()) {
    if (codings.size() != 1 || !iequals(codings[0], "chunked")) {
      fail(failure::unsupported_transfer_encoding, "only the chunked transfer coding is supported");
      return;
    }
    state_ = state::body;
    step_ = step::chunk_size;
    return;
  }
  auto lengths = list_values(response_, "content-length");
  if (lengths.empty()) {
    state_ = state::body;
    step_ = step::until_close;
    return;
  }
  for (auto l : lengths) {
    if (l != lengths[0] || l.size() > 18 || !std::all_of(l.begin(), l.end(), is_ascii_digit)) {
      fail(failure::malformed, "the Content-Length is invalid or given twice with different values");
      return;
    }
  }
  std::size_t n = 0;
  for (char c : lengths[0]) n = n * 10 + static_cast<std::size_t>(c - '0');
  if (n > limits_.max_body_bytes) {
    fail(failure::body_too_large, "the response body is larger than the limit");
    return;
  }
  remaining_ = n;
  state_ = n == 0 ? state::done : state::body;
  step_ = step::fixed_body;
}

void http_response_parser::on_chunk_size(std::string_view line) {
  std::size_t i = 0, size = 0;
  for (; i < line.size() && hex_digit_value(line[i]) >= 0; ++i) {
    if (i == max_chunk_hex_digits) {
      fail(failure::malformed, "a chunk size is too large");
      return;
    }
    size = size * 16 + static_cast<std::size_t>(hex_digit_value(line[i]));
  }
  std::string_view rest = trim_ows(line.substr(i));
  if (i == 0 || (!rest.empty() && rest.front() != ';')) {
    fail(failure::malformed, "a chunk size line is not hex digits with optional extensions");
    return;
  }
  if (size == 0) {
    step_ = step::trailer_line;
    return;
  }
  if (size > limits_.max_body_bytes - response_.body.size()) {
    fail(failure::body_too_large, "the response body is larger than the limit");
    return;
  }
  remaining_ = size;
  step_ = step::chunk_data;
}

std::size_t http_response_parser::feed_body(std::string_view bytes) {
  std::size_t take = step_ == step::until_close ? bytes.size() : std::min(bytes.size(), remaining_);
  if (!append_body(bytes.substr(0, take))) return take;
  if (step_ == step::until_close) return take;
  remaining_ -= take;
  if (remaining_ > 0) return take;
  if (step_ == step::fixed_body) state_ = state::done;
  else step_ = step::chunk_end;
  return take;
}

bool http_response_parser::append_body(std::string_view bytes) {
  std::size_t room = limits_.max_body_bytes - response_.body.size();
  // Keep what fits before failing, so the kept prefix does not depend on how reads were cut.
  response_.body.append(bytes.substr(0, room));
  if (bytes.size() <= room) return true;
  fail(failure::body_too_large, "the response body is larger than the limit");
  return false;
}

void http_response_parser::fail(failure f, std::string detail) {
  state_ = state::failed;
  failure_ = f;
  detail_ = std::move(detail);
}

}  // namespace platform
