// runtime-a's credential rules: which credential a turn uses, the CLI login file, and a
// refresh applied to it.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/claude_login.hpp"

namespace claude_login_test {

using namespace platform;
using nlohmann::json;

namespace {

constexpr std::string_view file = R"({"claudeAiOauth":{"accessToken":"sk-ant-oat01-old","refreshToken":"sk-ant-ort01-old",
  "expiresAt":1800000000000,"scopes":["user:inference","user:profile"],"subscriptionType":"max","rateLimitTier":"t"},
  "mcpOAuth":{"k":{"v":1}}})";

}  // namespace

TEST_CASE("the key takes priority over the login; the demo provider only without either") {
  using s = claude_credential_source;
  CHECK(choose_claude_credential(true, true, true) == s::api_key);
  CHECK(choose_claude_credential(false, true, true) == s::cli_login);
  CHECK(choose_claude_credential(false, false, true) == s::demo_provider);
  CHECK(choose_claude_credential(false, false, false) == s::none);
}

TEST_CASE("a login file: tokens, expiry, scopes") {
  auto l = parse_claude_login(file);
  REQUIRE(l);
  CHECK(l->access_token == "sk-ant-oat01-old");
  CHECK(l->refresh_token == "sk-ant-ort01-old");
  CHECK(l->expires_at == 1800000000000);
  CHECK(l->scopes == std::vector<std::string>{"user:inference", "user:profile"});
}

TEST_CASE("what is not a login") {
  for (std::string_view bad : {"", "[]", "{}", R"({"claudeAiOauth":[]})", R"({"claudeAiOauth":{}})",
                               R"({"claudeAiOauth":{"accessToken":""}})", R"({"claudeAiOauth":{"accessToken":7}})",
                               "{\"claudeAiOauth\":{\"accessToken\":\"t\"", R"({"claudeAiOauth":{"a":[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]}})"}) {
    auto l = parse_claude_login(bad);
    REQUIRE_FALSE(l);
    CHECK(l.error().code == platform::api_error::invalid_login);
  }
  // Fields of other types are absent, not errors.
  auto l = parse_claude_login(R"({"claudeAiOauth":{"accessToken":"t","refreshToken":1,"expiresAt":"x","scopes":"s"}})");
  REQUIRE(l);
  CHECK(l->refresh_token.empty());
  CHECK(l->expires_at == 0);
  CHECK(l->scopes.empty());
}

TEST_CASE("refresh five minutes before expiry, and only with a refresh token") {
  auto l = *parse_claude_login(file);
  CHECK_FALSE(claude_login_needs_refresh(l, 1800000000000 - claude_login_refresh_margin_ms - 1));
  CHECK(claude_login_needs_refresh(l, 1800000000000 - claude_login_refresh_margin_ms));
  CHECK(claude_login_needs_refresh(l, 1900000000000));
  l.refresh_token.clear();
  CHECK_FALSE(claude_login_needs_refresh(l, 1900000000000));
  auto no_expiry = *parse_claude_login(R"({"claudeAiOauth":{"accessToken":"t","refreshToken":"r"}})");
  CHECK_FALSE(claude_login_needs_refresh(no_expiry, 1900000000000));
}

TEST_CASE("the refresh request is the CLI's: grant, refresh token, client id, scopes") {
  json body = json::parse(claude_refresh_request(*parse_claude_login(file), "client-1"));
  CHECK(body == json({{"grant_type", "refresh_token"}, {"refresh_token", "sk-ant-ort01-old"}, {"client_id", "client-1"},
                      {"scope", "user:inference user:profile"}}));
}

TEST_CASE("a refresh keeps every other field and rotates the tokens") {
  auto out = apply_claude_refresh(file, R"({"access_token":"sk-ant-oat01-new","refresh_token":"sk-ant-ort01-new","expires_in":3600})",
                                  1900000000000);
  REQUIRE(out);
  json before = json::parse(file);
  json after = json::parse(*out);
  CHECK(after["mcpOAuth"] == before["mcpOAuth"]);
  CHECK(after["claudeAiOauth"]["subscriptionType"] == "max");
  CHECK(after["claudeAiOauth"]["scopes"] == before["claudeAiOauth"]["scopes"]);
  CHECK(after["claudeAiOauth"]["accessToken"] == "sk-ant-oat01-new");
  CHECK(after["claudeAiOauth"]["refreshToken"] == "sk-ant-ort01-new");
  CHECK(after["claudeAiOauth"]["expiresAt"] == 1900000000000 + 3600 * 1000);
  // A reply without a new refresh token keeps the old one.
  auto kept = apply_claude_refresh(file, R"({"access_token":"a2","expires_in":60})", 0);
  REQUIRE(kept);
  CHECK(json::parse(*kept)["claudeAiOauth"]["refreshToken"] == "sk-ant-ort01-old");
}

TEST_CASE("a reply that is not a token answer changes nothing") {
  for (std::string_view bad : {"", "{}", R"({"error":"invalid_grant"})", R"({"access_token":"a"})",
                               R"({"access_token":"a","expires_in":-5})", R"({"access_token":"","expires_in":5})",
                               R"({"access_token":"a","expires_in":"60"})"}) {
    auto out = apply_claude_refresh(file, bad, 0);
    REQUIRE_FALSE(out);
    CHECK(out.error().code == platform::api_error::refresh_failed);
  }
  CHECK(apply_claude_refresh("{}", R"({"access_token":"a","expires_in":5})", 0).error().code == platform::api_error::invalid_login);
}

}  // namespace claude_login_test
