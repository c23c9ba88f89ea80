#pragma once
// runtime-a's provider credential (spec "Authentication" 7): "runtime-a uses its CLI login, or
// the API key variable if set (the key takes priority and switches to API billing)". Without
// either, scripts/run.sh offers its labelled demo provider.
//
// The CLI login is Claude Code's own file, `.credentials.json` in its config dir:
// {"claudeAiOauth":{"accessToken","refreshToken","expiresAt" (ms),"scopes",...}} (verified
// with the pinned CLI, docs/runtimes.md). The platform hands a runtime process only the access
// token; the refresh token stays with the worker, which refreshes an expiring login itself and
// writes the result back into the operator's file, keeping every other field.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

enum class claude_credential_source { api_key, cli_login, demo_provider, none };

// The key first, then the login, then the demo provider.
constexpr claude_credential_source choose_claude_credential(bool api_key, bool cli_login, bool demo_provider) {
  if (api_key) return claude_credential_source::api_key;
  if (cli_login) return claude_credential_source::cli_login;
  if (demo_provider) return claude_credential_source::demo_provider;
  return claude_credential_source::none;
}

struct claude_login {
  std::string access_token;
  std::string refresh_token;  // empty: the login cannot be refreshed (a copied or setup token)
  std::int64_t expires_at = 0;  // ms since the epoch; 0 when the file does not say
  std::vector<std::string> scopes;
};

// The login in a `.credentials.json` text. Errors: `invalid_login` (not JSON, too deep or large,
// no claudeAiOauth object with a non-empty accessToken string).
result<claude_login> parse_claude_login(std::string_view text);

// The CLI refreshes five minutes before expiry; so does the worker, so a turn never starts
// with a token about to lapse. A login without a refresh token is used as it is.
inline constexpr std::int64_t claude_login_refresh_margin_ms = 5 * 60 * 1000;
bool claude_login_needs_refresh(const claude_login& login, std::int64_t now_ms);

// The token endpoint's request body for `login` (JSON, as the CLI sends it).
std::string claude_refresh_request(const claude_login& login, std::string_view client_id);

// `file_text` with the token endpoint's `reply` applied: the new access token, the rotated
// refresh token (kept when the reply has none), expiresAt from expires_in; every other field
// as it was. Errors: `invalid_login` (the file), `refresh_failed` (the reply has no
// access_token string or no usable expires_in).
result<std::string> apply_claude_refresh(std::string_view file_text, std::string_view reply, std::int64_t now_ms);

}  // namespace platform
