#pragma once
// How an app's live preview is reached (issue 12, "Preview and published apps"): each app is
// served from an origin of its own, never the builder's, e.g. `http://{appId}.preview.localhost:
// {port}` locally, so the app's scripts can read nothing of the builder (cookies, storage, the
// API). No cookie works there: access is a short-lived signed token in the path,
//
//   /p/{token}/{file}        token = "{expiresAt}.{digest hex}.{hmac hex}"
//
// bound by HMAC-SHA256 to the app, the build digest and the expiry. The build's asset URLs are
// relative (the template's `base: './'`), so every file it loads carries the same token. The
// answers leave postMessage as the app's only way out: `connect-src 'none'`, forms nowhere, and
// framed only by the builder's own origins. Sans-I/O: the server reads the files.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

struct preview_grant {
  std::string app_id;
  std::string digest;           // "sha256:<hex>"
  std::int64_t expires_at = 0;  // ms since the epoch
};

// The token for `grant` under `key` (any bytes; the web derives it from its secrets key).
std::string preview_token(std::string_view key, const preview_grant& grant);

// The grant a token carries for `app_id`, when its MAC matches and it has not expired.
// Errors: `invalid_token` (malformed, another app's, forged), `token_expired`.
result<preview_grant> verify_preview_token(std::string_view key, std::string_view token, std::string_view app_id,
                                           std::int64_t now);

// The app a Host header names under `preview_domain` ("preview.localhost"): "{appId}.{domain}"
// with an optional port, the app id a valid id. Nothing for any other host.
std::optional<std::string> preview_app_of_host(std::string_view host, std::string_view preview_domain);

struct preview_path {
  std::string token;
  std::string file;  // relative to the build's root; "index.html" for "/p/{token}/"
};

// "/p/{token}/{file...}" (percent-decoded, without the query). Nothing for any other path, or
// one that could leave the build (dot segments, hidden names, backslashes, control bytes).
std::optional<preview_path> parse_preview_path(std::string_view path);

// The preview's URL path for a grant: "/p/{token}/index.html".
std::string preview_entry_path(std::string_view key, const preview_grant& grant);

struct preview_header {
  std::string name;
  std::string value;
};

// Headers of a preview file's answer besides Content-Type: the CSP (frames allowed only from
// `builder_origins`, space-separated), nosniff, no referrer, private caching (the token
// expires), and never a cookie.
std::vector<preview_header> preview_headers(std::string_view builder_origins);

}  // namespace platform
