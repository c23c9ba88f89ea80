// The egress head (RFC 9112 request head). The proxy relays everything after the head raw, so
// the upstream's parser, not ours, frames the body: whatever the two could read differently
// (line ends, folding, lengths given twice or two ways, targets an upstream might normalize
// into another path) is refused, since a request that is refused cannot be smuggled. Messages
// name the rule broken and nothing of the request: a header's name or value may carry the
// placeholder, and a credential header's value after the swap is the secret.
#include "platform/egress_head.hpp"
#include "platform/api_error.hpp"
#include "platform/ascii.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace platform {
namespace egress_head_impl {
namespace {

constexpr std::string_view crlf = "\r\n";
constexpr std::string_view end_of_head = "\r\n\r\n";
constexpr std::size_t max_headers = 100;
constexpr std::size_t min_placeholder = 16;
constexpr std::size_t max_length_digits = 18;  // below 2^63: no parser overflows on it

constexpr std::array<std::string_view, 7> methods{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"};

// Lower-case names. The placeholder is swapped in these values only.
constexpr std::array<std::string_view, 4> credential_headers{"authorization", "x-api-key", "api-key", "x-goog-api-key"};

// Hop-by-hop headers (RFC 9110 section 7.6.1) and the proxy's own: they describe the sandbox's
// connection to the proxy, not the proxy's to the upstream. Host is replaced, not copied. A
// header named Close is what the `Connection: close` sent upstream names, so the upstream would
// drop it too (RFC 9110 reserves the name for that reason).
constexpr std::array<std::string_view, 7> dropped_headers{"connection", "keep-alive", "proxy-connection",
                                                          "proxy-authorization", "upgrade", "te", "close"};

// Headers the message framing needs: a Connection option naming one would have the proxy drop
// it, and the upstream would then read the body as a second request.
constexpr std::array<std::string_view, 3> framing_headers{"host", "content-length", "transfer-encoding"};

template <std::size_t N>
bool is_one_of(std::string_view lower_name, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), lower_name) != names.end();
}

tl::unexpected<error> refuse(std::string message) { return fail(api_error::egress_refused, std::move(message)); }

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_token_char); }

bool is_visible_ascii(char c) { return c > 0x20 && c < 0x7f; }

bool all_visible_ascii(std::string_view s) { return std::all_of(s.begin(), s.end(), is_visible_ascii); }

// RFC 9110 field-value bytes: visible ASCII, obs-text, and SP or HTAB between them.
bool is_field_value_byte(char c) {
  auto u = static_cast<unsigned char>(c);
  return u == '\t' || (u >= 0x20 && u != 0x7f);
}

// The path of an origin-form target once percent-decoded, split at '/' and at '\\' (which some
// servers take for '/'): no segment may be "." or "..", so no upstream normalizes the request
// out from under path_prefix. Every '%' in `path` starts two hex digits (checked before).
bool has_dot_segment(std::string_view path) {
  std::string decoded;
  decoded.reserve(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%') {
      decoded += static_cast<char>(hex_digit_value(path[i + 1]) * 16 + hex_digit_value(path[i + 2]));
      i += 2;
    } else {
      decoded += path[i];
    }
  }
  std::size_t start = 0;
  while (start <= decoded.size()) {
    std::size_t end = decoded.find_first_of("/\\", start);
    if (end == std::string::npos) end = decoded.size();
    std::string_view segment = std::string_view(decoded).substr(start, end - start);
    if (segment == "." || segment == "..") return true;
    start = end + 1;
  }
  return false;
}

// The rules come from the worker's settings, not the sandbox; they still must not be able to
// break the head (a secret with CRLF would write headers of its own).
result<void> check_rules(const egress_head_rules& rules) {
  if (!rules.placeholder.empty()) {
    if (rules.placeholder.size() < min_placeholder) {
      return fail(api_error::invalid_config, "the egress placeholder is shorter than 16 bytes");
    }
    if (!all_visible_ascii(rules.placeholder)) {
      return fail(api_error::invalid_config, "the egress placeholder is not visible ASCII");
    }
    if (rules.secret.empty() || !all_visible_ascii(rules.secret)) {
      return fail(api_error::invalid_config, "the egress secret is empty or not visible ASCII");
    }
    // Else the output would hold the placeholder, and the swap would not be a swap.
    if (rules.secret.find(rules.placeholder) != std::string::npos) {
      return fail(api_error::invalid_config, "the egress secret contains the placeholder");
    }
  }
  const std::string& host = rules.upstream_host;
  if (host.empty() || !std::all_of(host.begin(), host.end(), [](char c) {
        return is_visible_ascii(c) && std::string_view("/?#@\\,").find(c) == std::string_view::npos;
      })) {
    return fail(api_error::invalid_config, "the egress upstream host is not a host[:port]");
  }
  const std::string& prefix = rules.path_prefix;
  if (!prefix.empty()) {
    bool ok = prefix.front() == '/' && !prefix.starts_with("//") && prefix.back() != '/' && all_visible_ascii(prefix) &&
              prefix.find_first_of("?#%\\") == std::string::npos && !has_dot_segment(prefix);
    if (!ok) return fail(api_error::invalid_config, "the egress path prefix is not \"\" or a plain path starting with '/' and not ending with one");
  }
  return {};
}

result<void> check_target(std::string_view target) {
  if (target.empty() || target.front() != '/') {
    return refuse("the request target is not origin-form (absolute-form, authority-form and '*' are not relayed)");
  }
  if (target.starts_with("//")) return refuse("the request target starts with '//', which reads as an authority");
  if (!all_visible_ascii(target)) return refuse("the request target has a byte outside visible ASCII");
  if (target.find('#') != std::string_view::npos) return refuse("the request target has a fragment");
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] != '%') continue;
    if (i + 2 >= target.size() || hex_digit_value(target[i + 1]) < 0 || hex_digit_value(target[i + 2]) < 0) {
      return refuse("the request target has a '%' not followed by two hex digits");
    }
  }
  if (has_dot_segment(target.substr(0, target.find('?')))) {
    return refuse("the request target has a dot segment (\".\" or \"..\", also percent-encoded)");
  }
  return {};
}

// `value` with every placeholder replaced by the secret.
std::string swapped(std::string_view value, const egress_head_rules& rules) {
  if (rules.placeholder.empty()) return std::string(value);
  std::string out;
  out.reserve(value.size());
  while (true) {
    std::size_t at = value.find(rules.placeholder);
    if (at == std::string_view::npos) break;
    out.append(value.substr(0, at));
    out.append(rules.secret);
    value.remove_prefix(at + rules.placeholder.size());
  }
  out.append(value);
  return out;
}

struct header_line {
  std::string_view name;
  std::string lower_name;
  std::string_view value;  // trimmed
};

}  // namespace
}  // namespace egress_head_impl

egress_head_reader::egress_head_reader(std::size_t max_head_bytes) : max_head_bytes_(max_head_bytes) {}

egress_head_reader::state egress_head_reader::feed(std::string_view bytes) {
  if (state_ == state::complete) {
    buffer_.append(bytes);
    return state_;
  }
  if (state_ == state::too_large) return state_;
  // Only what could still belong to a head within the limit is searched, so the answer does not
  // depend on how the bytes were cut; the rest of the piece is kept for rest() if the head ends.
  std::size_t take = std::min(bytes.size(), max_head_bytes_ - buffer_.size());
  buffer_.append(bytes.substr(0, take));
  std::size_t from = scanned_ >= 3 ? scanned_ - 3 : 0;
  std::size_t at = std::string_view(buffer_).find(egress_head_impl::end_of_head, from);
  if (at != std::string_view::npos) {
    head_size_ = at + egress_head_impl::end_of_head.size();
    buffer_.append(bytes.substr(take));
    state_ = state::complete;
    return state_;
  }
  scanned_ = buffer_.size();
  if (buffer_.size() >= max_head_bytes_) {
    state_ = state::too_large;
    std::string().swap(buffer_);
  }
  return state_;
}

std::string_view egress_head_reader::head() const {
  if (state_ != state::complete) return {};
  return std::string_view(buffer_).substr(0, head_size_);
}

std::string_view egress_head_reader::rest() const {
  if (state_ != state::complete) return {};
  return std::string_view(buffer_).substr(head_size_);
}

namespace egress_head_impl {
namespace {

// The rewrite, in this namespace so that its helpers' names never meet another file's in a
// unity build.
result<egress_request> rewrite(std::string_view head, const egress_head_rules& rules) {
  if (auto ok = check_rules(rules); !ok) return tl::unexpected(ok.error());
  if (head.size() > rules.max_head_bytes) return refuse("the request head is larger than the limit");
  if (!head.ends_with(end_of_head)) return refuse("the request head does not end with an empty line (CRLF CRLF)");
  std::string_view lines_text = head.substr(0, head.size() - end_of_head.size());

  // Lines at CRLF; a CR or LF left inside a line is a bare one.
  std::vector<std::string_view> lines;
  while (true) {
    std::size_t at = lines_text.find(crlf);
    std::string_view line = lines_text.substr(0, at);
    if (line.find_first_of("\r\n") != std::string_view::npos) {
      return refuse("the request head has a bare CR or LF (lines must end in CRLF)");
    }
    lines.push_back(line);
    if (at == std::string_view::npos) break;
    lines_text.remove_prefix(at + crlf.size());
  }

  // METHOD SP TARGET SP HTTP/1.x, single spaces.
  std::string_view request_line = lines.front();
  std::size_t sp1 = request_line.find(' ');
  std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : request_line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || request_line.find(' ', sp2 + 1) != std::string_view::npos) {
    return refuse("the request line is not METHOD SP TARGET SP HTTP-VERSION");
  }
  std::string_view method = request_line.substr(0, sp1);
  std::string_view target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = request_line.substr(sp2 + 1);
  if (!is_token(method) || !is_one_of(method, methods)) {
    return refuse("the method is not one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS");
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return refuse("the HTTP version is not HTTP/1.1 or HTTP/1.0");
  if (auto ok = check_target(target); !ok) return tl::unexpected(ok.error());
  bool guard_placeholder = !rules.placeholder.empty();
  if (guard_placeholder && target.find(rules.placeholder) != std::string_view::npos) {
    return refuse("the request target carries the placeholder credential");
  }

  std::vector<header_line> headers;
  std::size_t hosts = 0, lengths = 0, codings = 0;
  std::uint64_t length = 0;
  std::vector<std::string> connection_options;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty()) return refuse("the request head has an empty line before its end");
    if (line.front() == ' ' || line.front() == '\t') return refuse("folded header lines (obs-fold) are not relayed");
    if (!std::all_of(line.begin(), line.end(), is_field_value_byte)) {
      return refuse("a header line has a control byte (only HTAB is allowed in a value)");
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return refuse("a header line has no colon");
    std::string_view name = line.substr(0, colon);
    if (!is_token(name)) return refuse("a header name is not an HTTP token (no space before the colon)");
    if (headers.size() == max_headers) return refuse("the request has more than 100 headers");
    header_line h{name, ascii_lower(name), trim_ows(line.substr(colon + 1))};
    bool credential = is_one_of(h.lower_name, credential_headers);
    // Anywhere else the placeholder could come back to the sandbox swapped or reflected, or be
    // a probe of what gets swapped: it belongs in a credential header's value only.
    if (guard_placeholder && (credential ? name : line).find(rules.placeholder) != std::string_view::npos) {
      return refuse("the placeholder credential is in a header that is not a credential header");
    }
    if (h.lower_name == "host") {
      ++hosts;
    } else if (h.lower_name == "content-length") {
      ++lengths;
      if (h.value.empty() || h.value.size() > max_length_digits || !std::all_of(h.value.begin(), h.value.end(), is_ascii_digit)) {
        return refuse("the Content-Length is not 1 to 18 digits");
      }
      for (char c : h.value) length = length * 10 + static_cast<std::uint64_t>(c - '0');
    } else if (h.lower_name == "transfer-encoding") {
      ++codings;
      if (!iequals(h.value, "chunked")) return refuse("the Transfer-Encoding is not exactly chunked");
    } else if (h.lower_name == "connection") {
      std::string_view list = h.value;
      while (true) {
        std::size_t comma = list.find(',');
        std::string_view option = trim_ows(list.substr(0, comma));
        if (!option.empty()) connection_options.push_back(ascii_lower(option));
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
    }
    headers.push_back(std::move(h));
  }
  if (hosts > 1) return refuse("the request has more than one Host header");
  if (lengths > 1) return refuse("the request has more than one Content-Length header");
  if (codings > 1) return refuse("the request has more than one Transfer-Encoding header");
  if (lengths > 0 && codings > 0) return refuse("the request has both Content-Length and Transfer-Encoding");
  if (codings > 0 && version == "HTTP/1.0") return refuse("an HTTP/1.0 request has a Transfer-Encoding");
  for (const auto& option : connection_options) {
    if (is_one_of(option, framing_headers)) return refuse("the Connection header names a header the message framing needs");
  }

  std::string out;
  out.reserve(head.size() + rules.upstream_host.size() + rules.path_prefix.size() + rules.secret.size() + 64);
  out.append(method).append(" ").append(rules.path_prefix).append(target).append(" ").append(version).append(crlf);
  out.append("Host: ").append(rules.upstream_host).append(crlf);
  for (const auto& h : headers) {
    if (h.lower_name == "host" || is_one_of(h.lower_name, dropped_headers)) continue;
    if (std::find(connection_options.begin(), connection_options.end(), h.lower_name) != connection_options.end()) continue;
    out.append(h.name).append(": ");
    if (is_one_of(h.lower_name, credential_headers)) out.append(swapped(h.value, rules));
    else out.append(h.value);
    out.append(crlf);
  }
  out.append("Connection: close").append(end_of_head);
  // Pieces joined can spell the placeholder where none of them holds it: the secret next to the
  // value around it, path_prefix next to the target. Such a head would carry it upstream.
  if (guard_placeholder && out.find(rules.placeholder) != std::string::npos) {
    return refuse("the rewritten head would carry the placeholder credential");
  }
  egress_request r{std::move(out), std::nullopt};
  if (codings == 0) r.content_length = length;
  return r;
}

}  // namespace
}  // namespace egress_head_impl

result<egress_request> rewrite_egress_request(std::string_view head, const egress_head_rules& rules) {
  return egress_head_impl::rewrite(head, rules);
}

result<std::string> rewrite_egress_head(std::string_view head, const egress_head_rules& rules) {
  return egress_head_impl::rewrite(head, rules).map([](egress_request r) { return std::move(r.head); });
}

}  // namespace platform
