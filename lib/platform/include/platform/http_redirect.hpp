#pragma once
// Redirect decisions of the HTTP executor: which answers are followed and what the next request
// is. The caller counts hops and re-applies every guard (scheme, domain, address) to the new
// URL. Rules: docs/http-executor.md.
#include <string_view>

#include "platform/error.hpp"
#include "platform/http_hop.hpp"

namespace platform {

// 301, 302, 303, 307 and 308; other 3xx answers are final responses.
bool is_followed_redirect(int status);

// The request after `status` with `location` from `current`:
// - 303 turns any method but HEAD into GET without a body; 301 and 302 do so for POST
//   (what browsers and curl do); 307 and 308 keep the method and the body.
// - A new origin (scheme, host or port) keeps only headers that carry no credentials
//   (Accept, Accept-Language, Content-Language, Content-Type, User-Agent).
// Errors: resolve_url's codes, and `insecure_redirect` for https to http, which would send the
// request (and its secrets) in clear text.
result<http_hop> redirected(const http_hop& current, int status, std::string_view location);

}  // namespace platform
