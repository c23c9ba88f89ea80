#include "platform/static_site.hpp"

#include <array>
#include <utility>

#include "platform/ascii.hpp"

namespace platform {
namespace {

constexpr std::string_view assets_dir = "assets";

// The path's segments after the leading '/', empty ones included ("/a//b/" -> a, "", b, "").
std::vector<std::string_view> segments_of(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t at = 1;
  while (true) {
    auto end = path.find('/', at);
    if (end == std::string_view::npos) {
      out.push_back(path.substr(at));
      return out;
    }
    out.push_back(path.substr(at, end - at));
    at = end + 1;
  }
}

// No NUL or other control byte, no backslash (a separator elsewhere), no dot segment and no
// hidden name (".", "..", ".env", ".build-stamp").
bool safe_segment(std::string_view s) {
  if (!s.empty() && s.front() == '.') return false;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f || c == '\\') return false;
  }
  return true;
}

// A segment naming a file: not empty, printable ASCII without spaces.
bool file_segment(std::string_view s) {
  if (s.empty() || !safe_segment(s)) return false;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return true;
}

bool has_extension(std::string_view segment) { return segment.find('.') != std::string_view::npos; }

std::string_view extension_of(std::string_view file_name) {
  auto slash = file_name.rfind('/');
  if (slash != std::string_view::npos) file_name.remove_prefix(slash + 1);
  auto dot = file_name.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : file_name.substr(dot + 1);
}

}  // namespace

std::optional<site_file> site_file_for(std::string_view path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  auto segs = segments_of(path);
  if (segs.front() == "api" || path == "/onboarding/provider") return std::nullopt;
  if (segs.front() == assets_dir) {
    if (segs.size() < 2) return std::nullopt;
    std::string file(assets_dir);
    for (std::size_t i = 1; i < segs.size(); ++i) {
      if (!file_segment(segs[i])) return std::nullopt;
      file += '/';
      file += segs[i];
    }
    return site_file{site_file_kind::asset, std::move(file)};
  }
  for (auto s : segs) {
    if (!safe_segment(s)) return std::nullopt;
  }
  if (!has_extension(segs.back())) return site_file{site_file_kind::page, "index.html"};
  // A name with an extension is a file: only the build's top-level ones are served.
  if (segs.size() != 1 || !file_segment(segs.front())) return std::nullopt;
  return site_file{site_file_kind::file, std::string(segs.front())};
}

bool is_page_route(std::string_view path) {
  auto f = site_file_for(path);
  return f && f->kind == site_file_kind::page;
}

std::string_view content_type_for(std::string_view file_name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 18> types{{
      {"html", "text/html; charset=utf-8"},
      {"js", "text/javascript"},
      {"mjs", "text/javascript"},
      {"css", "text/css"},
      {"json", "application/json"},
      {"map", "application/json"},
      {"webmanifest", "application/manifest+json"},
      {"svg", "image/svg+xml"},
      {"png", "image/png"},
      {"jpg", "image/jpeg"},
      {"jpeg", "image/jpeg"},
      {"gif", "image/gif"},
      {"webp", "image/webp"},
      {"ico", "image/x-icon"},
      {"woff2", "font/woff2"},
      {"woff", "font/woff"},
      {"txt", "text/plain; charset=utf-8"},
      {"wasm", "application/wasm"},
  }};
  std::string_view ext = extension_of(file_name);
  for (const auto& [e, type] : types) {
    if (iequals(ext, e)) return type;
  }
  return "application/octet-stream";
}

std::vector<site_header> site_headers(site_file_kind kind, std::string_view content_type) {
  std::vector<site_header> out;
  out.push_back({"Cache-Control", kind == site_file_kind::asset ? "public, max-age=31536000, immutable" : "no-cache"});
  out.push_back({"X-Content-Type-Options", "nosniff"});
  if (istarts_with(content_type, "text/html")) {
    out.push_back({"Content-Security-Policy", builder_page_csp});
    out.push_back({"X-Frame-Options", "DENY"});
    out.push_back({"Referrer-Policy", "same-origin"});
  }
  return out;
}

std::vector<site_encoding> site_encodings_for(std::string_view accept_encoding) {
  bool br = false, gzip = false, br_refused = false, gzip_refused = false, any = false;
  std::string_view rest = accept_encoding;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    auto semi = item.find(';');
    std::string_view coding = trim_ows(item.substr(0, semi));
    bool refused = false;
    if (semi != std::string_view::npos) {
      std::string_view params = item.substr(semi + 1);
      auto q = params.find("q=");
      if (q == std::string_view::npos) q = params.find("Q=");
      if (q != std::string_view::npos) {
        std::string_view value = trim_ows(params.substr(q + 2));
        // q=0, 0.0, 0.00, 0.000: refused; anything else is some preference.
        refused = !value.empty() && value.find_first_not_of("0.") == std::string_view::npos;
      }
    }
    if (iequals(coding, "br")) (refused ? br_refused : br) = true;
    else if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) (refused ? gzip_refused : gzip) = true;
    else if (coding == "*" && !refused) any = true;
  }
  std::vector<site_encoding> out;
  if ((br || any) && !br_refused) out.push_back({"br", ".br"});
  if ((gzip || any) && !gzip_refused) out.push_back({"gzip", ".gz"});
  return out;
}

std::string_view ui_not_built_page() {
  return R"(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Platform builder: page not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}code{background:#f2f2f2;padding:.1rem .3rem}</style>
</head>
<body>
<h1>The builder page is not built</h1>
<p>platform-web is running and its API answers under <code>/api/</code>, but it found no built
page to serve. Build it from the project's checkout:</p>
<p><code>bash scripts/setup-ui.sh</code></p>
<p>then reload. To serve a page built elsewhere, point <code>PLATFORM_UI_DIR</code> at the
directory holding its <code>index.html</code>.</p>
</body>
</html>
)";
}

std::string builder_page_csp_for(std::string_view preview_url) {
  std::string csp(builder_page_csp);
  auto app = preview_url.find("{appId}");
  if (app == std::string_view::npos) return csp;
  // Concatenated rather than replace()d: GCC 12 warns (-Wrestrict) on that replace.
  std::string origin = std::string(preview_url.substr(0, app)) + "*" + std::string(preview_url.substr(app + 7));
  auto scheme = origin.find("://");
  if (auto path = origin.find('/', scheme == std::string::npos ? 0 : scheme + 3); path != std::string::npos) origin.resize(path);
  constexpr std::string_view local = "http://*.preview.localhost:*";
  if (auto at = csp.find(local); at != std::string::npos) csp.replace(at, local.size(), origin);
  return csp;
}

}  // namespace platform
