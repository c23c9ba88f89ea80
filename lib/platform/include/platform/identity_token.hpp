#pragma once
// The signed identity token of PLATFORM_AUTH_MODE=external (design notes "Auth modes"): a
// compact JWT signed HS256 or RS256 by the enterprise identity provider, checked on every
// request: signature, `alg` (no `none`, no algorithm the verifier was not given a key for),
// issuer, audience, expiry and not-before. Sans-I/O: the caller passes the time.
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

struct identity_token_keys {
  std::string hs256_secret;       // empty: HS256 tokens are refused
  std::string rs256_public_pem;   // empty: RS256 tokens are refused
  std::string issuer;
  std::string audience;
  std::int64_t leeway_seconds = 30;
};

struct identity {
  std::string user_id;  // `sub`
  std::string email;
  std::string name;
  std::int64_t expires_at = 0;  // `exp`, seconds since the epoch (0: no token, local mode)
};

// Errors (all `invalid_token`, messages say which check failed, never echo the token).
result<identity> verify_identity_token(std::string_view token, const identity_token_keys& keys, std::int64_t now_seconds);

// Signs claims (a JSON object's text) with HS256: for tests and local tooling.
std::string sign_identity_token_hs256(std::string_view claims_json, std::string_view secret);

}  // namespace platform
