#include <doctest/doctest.h>

#include "platform/api_error.hpp"
#include "platform/preview_access.hpp"

namespace preview_access_test {

using namespace platform;

namespace {
const std::string key = "0123456789abcdef0123456789abcdef";
const std::string digest = "sha256:" + std::string(64, 'a');
}  // namespace

TEST_CASE("preview token: verifies for its app and digest until it expires") {
  std::string t = preview_token(key, {"app_1", digest, 10'000});
  auto g = verify_preview_token(key, t, "app_1", 9'999);
  REQUIRE(g);
  CHECK(g->digest == digest);
  CHECK(g->expires_at == 10'000);
  auto late = verify_preview_token(key, t, "app_1", 10'000);
  REQUIRE_FALSE(late);
  CHECK(late.error().code == platform::api_error::preview_token_expired);
}

TEST_CASE("preview token: another app, another key, or any edited part is refused") {
  std::string t = preview_token(key, {"app_1", digest, 10'000});
  CHECK(verify_preview_token(key, t, "app_2", 1).error().code == platform::api_error::invalid_preview_token);
  CHECK(verify_preview_token("another-key-another-key-another!!", t, "app_1", 1).error().code == platform::api_error::invalid_preview_token);
  std::string longer = "99999" + t.substr(t.find('.'));                      // a later expiry
  std::string other_digest = preview_token(key, {"app_1", "sha256:" + std::string(64, 'b'), 10'000});
  std::string swapped = t.substr(0, t.find('.') + 1) + other_digest.substr(other_digest.find('.') + 1, 64) + t.substr(t.rfind('.'));
  for (const std::string& bad : {longer, swapped, t + "0", std::string("1.2.3"), std::string(""), std::string("..."),
                                 std::string("-5.aa.") + std::string(64, 'c'), std::string("5.AA.") + std::string(64, 'c')}) {
    auto r = verify_preview_token(key, bad, "app_1", 1);
    CHECK_MESSAGE(!r, bad);
  }
}

TEST_CASE("preview host: {appId}.{domain} with any port, the domain case-insensitive") {
  CHECK(preview_app_of_host("app_1.preview.localhost:8787", "preview.localhost") == std::optional<std::string>("app_1"));
  CHECK(preview_app_of_host("app_1.PREVIEW.localhost", "preview.localhost") == std::optional<std::string>("app_1"));
  CHECK(preview_app_of_host("App_1.preview.localhost", "preview.localhost") == std::optional<std::string>("App_1"));
  for (const char* h : {"127.0.0.1:8787", "preview.localhost", ".preview.localhost", "a.b.preview.localhost",
                        "app_1.preview.localhost.evil.com", "app_1xpreview.localhost", "app%2f.preview.localhost", ""}) {
    CHECK_MESSAGE(!preview_app_of_host(h, "preview.localhost"), h);
  }
  CHECK_FALSE(preview_app_of_host("app_1.preview.localhost", ""));
}

TEST_CASE("preview path: /p/{token}/{file}, never out of the build") {
  auto p = parse_preview_path("/p/tok/assets/index-1.js");
  REQUIRE(p);
  CHECK(p->token == "tok");
  CHECK(p->file == "assets/index-1.js");
  CHECK(parse_preview_path("/p/tok/")->file == "index.html");
  CHECK(parse_preview_path("/p/tok/img/a b.png") == std::nullopt);
  for (const char* bad : {"/p/tok", "/p//x.js", "/x/tok/a.js", "/p/tok/../a.js", "/p/tok/a/../../b", "/p/tok/.env",
                          "/p/tok/a\\b.js", "/p/tok/a//b.js", "/p/tok/a/", "/api/p/tok/a.js"}) {
    CHECK_MESSAGE(!parse_preview_path(bad), bad);
  }
}

TEST_CASE("preview headers: postMessage is the app's only way out, framed only by the builder") {
  bool csp = false;
  for (const auto& h : preview_headers("http://127.0.0.1:8787")) {
    if (h.name != "Content-Security-Policy") continue;
    csp = true;
    CHECK(h.value.find("connect-src 'none'") != std::string::npos);
    CHECK(h.value.find("form-action 'none'") != std::string::npos);
    CHECK(h.value.find("frame-ancestors http://127.0.0.1:8787") != std::string::npos);
  }
  CHECK(csp);
  for (const auto& h : preview_headers("")) {
    if (h.name == "Content-Security-Policy") CHECK(h.value.find("frame-ancestors 'none'") != std::string::npos);
  }
}

}  // namespace preview_access_test
