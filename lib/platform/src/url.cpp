// URL reading for the HTTP executor. Strict in the authority (a host that two parsers could
// read differently is refused), lenient in the path and query (bytes are percent-encoded as a
// browser would), because only the host and port decide where a request goes.
#include "platform/url.hpp"

#include <algorithm>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/ascii.hpp"

namespace platform {
namespace {

constexpr std::size_t max_url_bytes = 16 * 1024;

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }

bool needs_encoding(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x80 || c == ' ') return true;
  return std::string_view("\"<>\\^`{|}").find(c) != std::string_view::npos;
}

std::string percent_encoded(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (!needs_encoding(c)) {
      out += c;
      continue;
    }
    auto u = static_cast<unsigned char>(c);
    out += '%';
    out += hex[u >> 4];
    out += hex[u & 0xF];
  }
  return out;
}

// Length of "scheme:" at the start of `s`, or 0 when `s` does not start with a scheme.
std::size_t scheme_length(std::string_view s) {
  if (s.empty() || !is_alpha(s[0])) return 0;
  for (std::size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (c == ':') return i + 1;
    if (!is_alpha(c) && !is_ascii_digit(c) && c != '+' && c != '-' && c != '.') return 0;
  }
  return 0;
}

// The resolver reads a host whose last label starts with a digit and holds only hex digits
// and 'x' as an IPv4 number (inet_aton); such a host must be a valid IPv4 address or nothing.
bool looks_numeric(std::string_view host) {
  std::string_view last = host.substr(host.rfind('.') + 1);
  if (last.empty() || !is_ascii_digit(last[0])) return false;
  return std::all_of(last.begin(), last.end(), [](char c) { return is_ascii_digit(c) || (c >= 'a' && c <= 'f') || c == 'x'; });
}

result<url> host_name(std::string_view h, url u) {
  if (h.empty()) return fail(api_error::invalid_url, "the URL has no host");
  for (char c : h) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      return fail(api_error::invalid_host, "non-ASCII host names are not supported; write the punycode (xn--) form");
    }
    if (c == '%') return fail(api_error::invalid_host, "percent-encoded host names are not allowed");
    if (!is_alpha(c) && !is_ascii_digit(c) && c != '-' && c != '.' && c != '_') {
      return fail(api_error::invalid_host, std::string("the host contains '") + c + "', which no host name may hold");
    }
  }
  std::string host = ascii_lower(h);
  if (host.size() > 253 || host.back() == '.' || host.front() == '.' || host.find("..") != std::string::npos) {
    return fail(api_error::invalid_host, "the host name has an empty label, a trailing dot or is too long");
  }
  if (looks_numeric(host)) {
    auto a = parse_ipv4(host);
    if (!a) return fail(api_error::invalid_host, "the host is numeric but not a valid IPv4 address");
    u.kind = host_kind::ipv4;
    u.host = to_string(*a);
    return u;
  }
  std::size_t label = 0;
  for (char c : host) {
    label = c == '.' ? 0 : label + 1;
    if (label > 63) return fail(api_error::invalid_host, "a host name label is longer than 63 characters");
  }
  u.kind = host_kind::name;
  u.host = std::move(host);
  return u;
}

result<url> bracketed_host(std::string_view inside, url u) {
  if (inside.find('%') != std::string_view::npos) {
    return fail(api_error::invalid_host, "IPv6 zone ids (the %... part) are not allowed");
  }
  auto a = parse_ipv6(inside);
  if (!a) return fail(api_error::invalid_host, "the bracketed host is not an IPv6 address");
  u.kind = host_kind::ipv6;
  u.host = to_string(*a);
  return u;
}

result<std::uint16_t> port_number(std::string_view p) {
  if (p.empty() || p.size() > 5 || !std::all_of(p.begin(), p.end(), is_ascii_digit)) {
    return fail(api_error::invalid_url, "the port must be a number from 1 to 65535");
  }
  unsigned v = 0;
  for (char c : p) v = v * 10 + static_cast<unsigned>(c - '0');
  if (v == 0 || v > 65535) return fail(api_error::invalid_url, "the port must be a number from 1 to 65535");
  return static_cast<std::uint16_t>(v);
}

result<url> authority(std::string_view a, url u) {
  if (a.find('@') != std::string_view::npos) {
    return fail(api_error::userinfo_not_allowed, "user names and passwords in the URL (user@host) are not allowed");
  }
  std::string_view port_text;
  bool has_port = false;
  result<url> with_host = u;
  if (!a.empty() && a.front() == '[') {
    std::size_t close = a.find(']');
    if (close == std::string_view::npos) return fail(api_error::invalid_host, "the IPv6 host has no closing ]");
    std::string_view after = a.substr(close + 1);
    if (!after.empty() && after.front() != ':') return fail(api_error::invalid_host, "unexpected text after the IPv6 host");
    has_port = !after.empty();
    port_text = has_port ? after.substr(1) : std::string_view{};
    with_host = bracketed_host(a.substr(1, close - 1), std::move(u));
  } else {
    std::size_t colon = a.find(':');
    has_port = colon != std::string_view::npos;
    port_text = has_port ? a.substr(colon + 1) : std::string_view{};
    std::string_view h = a.substr(0, colon);
    with_host = host_name(h, std::move(u));
  }
  if (!with_host) return with_host;
  if (has_port) {
    auto p = port_number(port_text);
    if (!p) return tl::unexpected(p.error());
    with_host->port = *p;
  }
  return with_host;
}

// Path and query as they go on the request line; the fragment never leaves the client.
std::string request_target(std::string_view rest) {
  rest = rest.substr(0, rest.find('#'));
  std::string target = percent_encoded(rest);
  if (target.empty() || target.front() != '/') target.insert(0, "/");
  return target;
}

// RFC 3986 section 5.2.4.
std::string remove_dot_segments(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.starts_with("../")) in.remove_prefix(3);
    else if (in.starts_with("./")) in.remove_prefix(2);
    else if (in.starts_with("/./")) in.remove_prefix(2);
    else if (in == "/.") in = "/";
    else if (in.starts_with("/../") || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      std::size_t cut = out.rfind('/');
      out.erase(cut == std::string::npos ? 0 : cut);
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      std::size_t next = in.find('/', 1);
      std::size_t take = next == std::string_view::npos ? in.size() : next;
      out.append(in.substr(0, take));
      in.remove_prefix(take);
    }
  }
  return out;
}

struct target_parts {
  std::string_view path;
  std::optional<std::string_view> query;
};

target_parts split_target(std::string_view t) {
  t = t.substr(0, t.find('#'));
  std::size_t q = t.find('?');
  if (q == std::string_view::npos) return {t, std::nullopt};
  return {t.substr(0, q), t.substr(q + 1)};
}

std::string with_query(std::string path, std::optional<std::string_view> query) {
  if (path.empty() || path.front() != '/') path.insert(0, "/");
  std::string t = percent_encoded(path);
  if (query) t += "?" + percent_encoded(*query);
  return t;
}

}  // namespace

std::optional<ip_address> url::address() const {
  if (kind == host_kind::ipv4) return parse_ipv4_strict(host);
  if (kind == host_kind::ipv6) return parse_ipv6(host);
  return std::nullopt;
}

bool url::default_port() const { return port == (scheme == "https" ? 443 : 80); }

std::string url::authority() const {
  std::string a = kind == host_kind::ipv6 ? "[" + host + "]" : host;
  if (!default_port()) a += ":" + std::to_string(port);
  return a;
}

std::string url::origin() const { return scheme + "://" + authority(); }

std::string url::text() const { return origin() + target; }

result<url> parse_url(std::string_view text) {
  if (text.size() > max_url_bytes) return fail(api_error::invalid_url, "the URL is longer than 16 KiB");
  if (std::any_of(text.begin(), text.end(), is_control)) {
    return fail(api_error::invalid_url, "the URL contains a control character");
  }
  std::size_t scheme_end = scheme_length(text);
  if (scheme_end == 0) return fail(api_error::invalid_url, "not an absolute URL: it must start with https:// or http://");
  url u;
  u.scheme = ascii_lower(text.substr(0, scheme_end - 1));
  if (u.scheme != "http" && u.scheme != "https") {
    return fail(api_error::scheme_not_allowed, "only http and https URLs can be called, not " + u.scheme.substr(0, 32));
  }
  std::string_view rest = text.substr(scheme_end);
  if (!rest.starts_with("//")) return fail(api_error::invalid_url, "the URL has no host: write " + u.scheme + "://host/...");
  rest.remove_prefix(2);
  std::size_t end = rest.find_first_of("/?#\\");
  if (end != std::string_view::npos && rest[end] == '\\') {
    return fail(api_error::invalid_host, "a backslash in the host part is read differently by different parsers");
  }
  u.port = u.scheme == "https" ? 443 : 80;
  auto with_authority = authority(rest.substr(0, end), std::move(u));
  if (!with_authority) return with_authority;
  with_authority->target = request_target(end == std::string_view::npos ? std::string_view{} : rest.substr(end));
  return with_authority;
}

result<url> resolve_url(const url& base, std::string_view reference) {
  std::string_view ref = trim_ows(reference);
  if (ref.size() > max_url_bytes) return fail(api_error::invalid_url, "the URL is longer than 16 KiB");
  if (std::any_of(ref.begin(), ref.end(), is_control)) {
    return fail(api_error::invalid_url, "the URL contains a control character");
  }
  if (scheme_length(ref) > 0 || ref.starts_with("//")) {
    auto next = scheme_length(ref) > 0 ? parse_url(ref) : parse_url(base.scheme + ":" + std::string(ref));
    if (!next) return next;
    auto parts = split_target(next->target);
    next->target = with_query(remove_dot_segments(parts.path), parts.query);
    return next;
  }
  url next = base;
  auto own = split_target(ref);
  auto base_parts = split_target(base.target);
  std::string path;
  if (own.path.empty()) {
    path = std::string(base_parts.path);
    if (!own.query) own.query = base_parts.query;
  } else if (own.path.front() == '/') {
    path = remove_dot_segments(own.path);
  } else {
    std::string merged(base_parts.path.substr(0, base_parts.path.rfind('/') + 1));
    path = remove_dot_segments(merged + std::string(own.path));
  }
  next.target = with_query(std::move(path), own.query);
  return next;
}

bool host_in_domain(const url& u, std::string_view domain) {
  std::string d = ascii_lower(domain);
  if (d.empty()) return false;
  std::optional<ip_address> ip = parse_ipv4_strict(d);
  if (!ip && d.size() > 2 && d.front() == '[' && d.back() == ']') ip = parse_ipv6(std::string_view(d).substr(1, d.size() - 2));
  if (!ip) ip = parse_ipv6(d);
  if (ip) return u.address() == ip;
  if (u.kind != host_kind::name || looks_numeric(d)) return false;
  if (u.host == d) return true;
  return u.host.size() > d.size() && u.host.ends_with(d) && u.host[u.host.size() - d.size() - 1] == '.';
}

}  // namespace platform
