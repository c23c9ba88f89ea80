// The builder page's static site rules (platform/static_site.hpp).
#include <doctest/doctest.h>

#include <string>

#include "platform/static_site.hpp"

namespace static_site_test {

using namespace platform;

namespace {

// "asset:assets/x.js", "page:index.html", "file:favicon.svg" or "none".
std::string answer(std::string_view path) {
  auto f = site_file_for(path);
  if (!f) return "none";
  const char* kind = f->kind == site_file_kind::asset ? "asset" : f->kind == site_file_kind::file ? "file" : "page";
  return std::string(kind) + ":" + f->path;
}

std::string header(const std::vector<site_header>& headers, std::string_view name) {
  for (const auto& h : headers) {
    if (h.name == name) return std::string(h.value);
  }
  return "(absent)";
}

}  // namespace

TEST_CASE("assets are files under the assets directory") {
  CHECK(answer("/assets/index-B1xQ_a-9.js") == "asset:assets/index-B1xQ_a-9.js");
  CHECK(answer("/assets/fonts/inter.woff2") == "asset:assets/fonts/inter.woff2");
  // Never the page: a missing asset is a 404, not index.html parsed as a script.
  CHECK(answer("/assets") == "none");
  CHECK(answer("/assets/") == "none");
  CHECK(answer("/assets/missing") == "asset:assets/missing");
  CHECK(answer("/assets//x.js") == "none");
  CHECK(answer("/assets/x.js/") == "none");
}

TEST_CASE("no path escapes the UI directory") {
  // req.path is percent-decoded: %2e%2e arrives as "..", %5c as a backslash, %00 as NUL.
  for (std::string_view p : {"/assets/../../etc/passwd", "/assets/..", "/assets/./x.js", "/assets/a/../../x",
                             "/assets/..\\..\\etc\\passwd", "/assets/x\\..\\..\\y.js", "/assets/.build-stamp",
                             "/../etc/passwd", "/..", "/.", "/a/../b", "/.build-stamp", "/.env", "/w/.git/config",
                             "/x\\y", "/..\\etc\\passwd.txt"}) {
    CAPTURE(p);
    CHECK(answer(p) == "none");
  }
  using namespace std::string_literals;
  CHECK(answer("/assets/x.js\0.png"s) == "none");
  CHECK(answer("/index.html\0"s) == "none");
  CHECK(answer("/w/\0/x"s) == "none");
  CHECK(answer("/assets/a\nb.js") == "none");
  CHECK(answer("/assets/a b.js") == "none");
  CHECK(answer("/assets/\x7f.js") == "none");
  CHECK(answer("relative/path") == "none");
  CHECK(answer("") == "none");
}

TEST_CASE("paths without an extension are routes of the page") {
  CHECK(answer("/") == "page:index.html");
  CHECK(answer("/w/default/apps/x") == "page:index.html");
  CHECK(answer("/w/default/apps/x/") == "page:index.html");
  CHECK(answer("/settings") == "page:index.html");
  CHECK(is_page_route("/w/default"));
  CHECK_FALSE(is_page_route("/favicon.svg"));
  CHECK_FALSE(is_page_route("/assets/x.js"));
}

TEST_CASE("the API and the onboarding page are not the site's") {
  CHECK(answer("/api") == "none");
  CHECK(answer("/api/") == "none");
  CHECK(answer("/api/nope") == "none");
  CHECK(answer("/api/workspaces/default/apps") == "none");
  CHECK(answer("/onboarding/provider") == "none");
  CHECK_FALSE(is_page_route("/api/nope"));
  // Only the exact segment: a page route may start with the same letters.
  CHECK(answer("/apis") == "page:index.html");
  CHECK(answer("/onboarding") == "page:index.html");
}

TEST_CASE("top-level files of the build; deeper names with an extension are no one's") {
  CHECK(answer("/favicon.svg") == "file:favicon.svg");
  CHECK(answer("/index.html") == "file:index.html");
  CHECK(answer("/robots.txt") == "file:robots.txt");
  CHECK(answer("/w/default/x.js") == "none");
  CHECK(answer("/w/app.v2") == "none");
}

TEST_CASE("content types by extension") {
  CHECK(content_type_for("assets/index-abc.js") == "text/javascript");
  CHECK(content_type_for("x.MJS") == "text/javascript");
  CHECK(content_type_for("assets/index-abc.css") == "text/css");
  CHECK(content_type_for("favicon.svg") == "image/svg+xml");
  CHECK(content_type_for("assets/inter.woff2") == "font/woff2");
  CHECK(content_type_for("assets/logo.png") == "image/png");
  CHECK(content_type_for("manifest.json") == "application/json");
  CHECK(content_type_for("assets/index-abc.js.map") == "application/json");
  CHECK(content_type_for("index.html") == "text/html; charset=utf-8");
  CHECK(content_type_for("assets/blob") == "application/octet-stream");
  CHECK(content_type_for("assets.d/blob") == "application/octet-stream");
  CHECK(content_type_for("x.exe") == "application/octet-stream");
}

TEST_CASE("cache policy and security headers") {
  auto asset = site_headers(site_file_kind::asset, "text/javascript");
  CHECK(header(asset, "Cache-Control") == "public, max-age=31536000, immutable");
  CHECK(header(asset, "X-Content-Type-Options") == "nosniff");
  CHECK(header(asset, "Content-Security-Policy") == "(absent)");

  auto file = site_headers(site_file_kind::file, "image/svg+xml");
  CHECK(header(file, "Cache-Control") == "no-cache");
  CHECK(header(file, "X-Content-Type-Options") == "nosniff");
  CHECK(header(file, "X-Frame-Options") == "(absent)");

  auto page = site_headers(site_file_kind::page, "text/html; charset=utf-8");
  CHECK(header(page, "Cache-Control") == "no-cache");
  CHECK(header(page, "X-Content-Type-Options") == "nosniff");
  CHECK(header(page, "X-Frame-Options") == "DENY");
  CHECK(header(page, "Referrer-Policy") == "same-origin");
  std::string csp = header(page, "Content-Security-Policy");
  CHECK(csp.find("default-src 'self'") != std::string::npos);
  CHECK(csp.find("script-src 'self';") != std::string::npos);
  CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
  CHECK(csp.find("frame-src 'self' http://*.preview.localhost:*") != std::string::npos);
  CHECK(csp.find("unsafe-eval") == std::string::npos);
  // index.html served as a top-level file is the page all the same.
  CHECK(header(site_headers(site_file_kind::file, "text/html; charset=utf-8"), "X-Frame-Options") == "DENY");
}

TEST_CASE("the not-built page tells how to build it and runs no script") {
  std::string_view p = ui_not_built_page();
  CHECK(p.find("bash scripts/setup-ui.sh") != std::string_view::npos);
  CHECK(p.find("PLATFORM_UI_DIR") != std::string_view::npos);
  CHECK(p.find("<script") == std::string_view::npos);
}

TEST_CASE("the page may frame the configured preview origins instead of the local ones") {
  CHECK(builder_page_csp_for("") == std::string(builder_page_csp));
  std::string csp = builder_page_csp_for("https://{appId}.preview.example.com/");
  CHECK(csp.find("frame-src 'self' https://*.preview.example.com;") != std::string::npos);
  CHECK(csp.find("preview.localhost") == std::string::npos);
  CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
}

}  // namespace static_site_test

TEST_CASE("site_encodings_for: brotli, then gzip, each only when accepted") {
  using platform::site_encodings_for;
  auto codings = [](std::string_view accept) {
    std::string out;
    for (const auto& e : site_encodings_for(accept)) out += std::string(e.coding) + std::string(e.suffix) + " ";
    return out;
  };
  CHECK(codings("gzip, deflate, br, zstd") == "br.br gzip.gz ");
  CHECK(codings("gzip") == "gzip.gz ");
  CHECK(codings("BR") == "br.br ");
  CHECK(codings("") == "");
  CHECK(codings("identity") == "");
  CHECK(codings("*") == "br.br gzip.gz ");
  CHECK(codings("*, br;q=0") == "gzip.gz ");
  CHECK(codings("br;q=0, gzip;q=0.0") == "");
  CHECK(codings("br;q=0.5, gzip;q=1") == "br.br gzip.gz ");
  CHECK(codings("x-gzip") == "gzip.gz ");
  CHECK(codings(" , ;;, br ; q = 0.001") == "br.br ");
}
