#pragma once
// The builder page as platform-web serves it (docs/http-api.md, "The builder page"): which file
// of the built UI directory (`ui/dist`) answers a GET path, with which content type, cache
// policy and headers. Sans-I/O: the server reads the file and answers 404 when it is missing.
//
//   /assets/<name>          the build's content-hashed files, cached for a year (immutable)
//   /<name>.<ext>           a top-level file of the build (favicon.svg), revalidated
//   any other path          index.html (the page routes itself), revalidated
//
// Not the site's: `/api` and everything under it (unknown API paths stay JSON 404s), the
// onboarding page, and any path a file could escape the UI directory through: a `.` or `..`
// segment, a name starting with a dot, a backslash, NUL or another control byte (the path is
// the percent-decoded one, so `%2e%2e` and `%5c` are caught here too).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace platform {

enum class site_file_kind {
  asset,  // under /assets: content-hashed, never changes under its name
  file,   // a top-level file of the build
  page,   // index.html, for a route of the page
};

struct site_file {
  site_file_kind kind = site_file_kind::page;
  std::string path;  // relative to the UI directory: "assets/index-B1x.js", "favicon.svg", "index.html"
};

// The file answering GET `path` (percent-decoded, without the query), or nothing when the
// path is not the site's.
std::optional<site_file> site_file_for(std::string_view path);

// True when GET `path` is answered with the page itself (index.html, or the "not built" page
// when there is none).
bool is_page_route(std::string_view path);

// By extension, case-insensitively; application/octet-stream for an unknown one.
std::string_view content_type_for(std::string_view file_name);

struct site_header {
  std::string_view name;
  std::string_view value;
};

// The page's Content-Security-Policy: its own scripts, styles and API only, frames of app
// previews (`http://{appId}.preview.localhost:{port}`), and never framed itself.
inline constexpr std::string_view builder_page_csp =
    "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data: blob:; "
    "style-src 'self' 'unsafe-inline'; font-src 'self' data:; frame-src 'self' http://*.preview.localhost:*; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

// The page's CSP when apps are previewed at `preview_url` (PLATFORM_PREVIEW_URL, with `{appId}`):
// that origin pattern may be framed instead of the local *.preview.localhost. Empty: the
// constant above.
std::string builder_page_csp_for(std::string_view preview_url);

// Every header of the answer besides Content-Type and Content-Length: the cache policy,
// nosniff, and on HTML the page's security headers.
std::vector<site_header> site_headers(site_file_kind kind, std::string_view content_type);

// The compressed forms of a file the build made beside it (scripts/precompress-ui.mjs), in the
// order the server tries them for a request's Accept-Encoding: brotli (`.br`), then gzip
// (`.gz`), each only when the header accepts it (a coding with q=0 is refused; `*` accepts
// both). The server sends such a file's bytes as they are, with Content-Encoding and
// `Vary: Accept-Encoding`, and never compresses per request.
struct site_encoding {
  std::string_view coding;  // the Content-Encoding value
  std::string_view suffix;  // of the file beside the original
};
std::vector<site_encoding> site_encodings_for(std::string_view accept_encoding);

// The page answered for a page route while no UI is built (HTML, no script).
std::string_view ui_not_built_page();

}  // namespace platform
