// Redirect decisions. The method rules follow RFC 9110 section 15.4 as browsers and curl apply
// it; the header rule is stricter than theirs (they drop only Authorization and Cookie),
// because tool secrets often travel in custom headers such as X-Api-Key.
#include "platform/http_redirect.hpp"
#include "platform/api_error.hpp"
#include "platform/ascii.hpp"

#include <algorithm>
#include <array>

namespace platform {
namespace {

constexpr std::array<std::string_view, 5> cross_origin_headers{"accept", "accept-language", "content-language",
                                                               "content-type", "user-agent"};

bool kept_across_origins(std::string_view name) {
  return std::any_of(cross_origin_headers.begin(), cross_origin_headers.end(),
                     [&](std::string_view h) { return iequals(h, name); });
}

bool becomes_get(int status, std::string_view method) {
  if (status == 303) return method != "GET" && method != "HEAD";
  return (status == 301 || status == 302) && method == "POST";
}

void drop_headers(http_hop& hop, bool (*keep)(std::string_view)) {
  std::erase_if(hop.headers, [&](const auto& h) { return !keep(h.first); });
}

}  // namespace

bool is_followed_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

result<http_hop> redirected(const http_hop& current, int status, std::string_view location) {
  auto target = resolve_url(current.target, location);
  if (!target) return tl::unexpected(target.error());
  if (current.target.scheme == "https" && target->scheme == "http") {
    return fail(api_error::insecure_redirect, "the provider redirected from https to http, which would send the request in clear text");
  }
  http_hop next = current;
  next.target = std::move(*target);
  if (becomes_get(status, current.method)) {
    next.method = "GET";
    next.body.reset();
    drop_headers(next, [](std::string_view n) { return !iequals(n, "content-type"); });
  }
  if (next.target.origin() != current.target.origin()) drop_headers(next, kept_across_origins);
  return next;
}

}  // namespace platform
