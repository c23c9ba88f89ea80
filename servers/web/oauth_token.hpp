#pragma once
// The OAuth 2.0 token endpoint as a client (RFC 6749 4.1.3 code exchange with PKCE, 6
// refresh): a form POST with the client credentials through the guarded HTTP executor (the
// same address guards and limits as custom tools; the token URL's own host is the domain).
// Token values never appear in errors.
#include <string>
#include <vector>

#include "platform/error.hpp"
#include "platform/integration_store.hpp"

namespace platform::web {

struct web_app;

// `requested` are the scopes asked for; a reply without `scope` grants them (RFC 6749 5.1).
result<oauth_tokens> exchange_code(web_app& app, const oauth_provider_config& provider, const std::string& code,
                                   const std::string& code_verifier, const std::string& redirect_uri,
                                   const std::vector<std::string>& requested, std::int64_t now);

// A reply without a new refresh token keeps `refresh_token`; without `scope`, `scopes`.
result<oauth_tokens> refresh_tokens(web_app& app, const oauth_provider_config& provider, const std::string& refresh_token,
                                    const std::vector<std::string>& scopes, std::int64_t now);

// RFC 3986 unreserved characters kept, everything else %XX (form bodies and query strings).
std::string form_encode(std::string_view s);

}  // namespace platform::web
