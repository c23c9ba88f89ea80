#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "platform/redaction.hpp"

namespace redaction_test {

using nlohmann::json;
using platform::redact_json;
using platform::secret_member_name;

TEST_CASE("secret member names are recognised in any spelling") {
  for (const char* n : {"Authorization", "cookie", "Set-Cookie", "access_token", "refreshToken", "client_secret",
                        "PASSWORD", "api-key", "apiKey", "x-api-key", "private_key", "key", "auth"}) {
    CHECK_MESSAGE(secret_member_name(n), n);
  }
  for (const char* n : {"city", "keySlug", "domain", "url", "status", "monkey"}) CHECK_MESSAGE(!secret_member_name(n), n);
}

TEST_CASE("secret members are masked at any depth and bearer tokens inside strings") {
  auto out = json::parse(redact_json(
      R"({"headers":{"Authorization":"Bearer abc123","X-Trace":"t"},"items":[{"token":"zzz"}],)"
      R"("note":"sent Bearer sk-live-999 to the API","password":{"nested":"x"}})"));
  CHECK(out["headers"]["Authorization"] == "[REDACTED]");
  CHECK(out["headers"]["X-Trace"] == "t");
  CHECK(out["items"][0]["token"] == "[REDACTED]");
  CHECK(out["password"] == "[REDACTED]");
  CHECK(out["note"] == "sent Bearer [REDACTED] to the API");
}

TEST_CASE("records are bounded: long strings cut on a character boundary, wide containers capped") {
  std::string long_text(5000, 'x');
  long_text += "é";
  json big = {{"body", long_text}, {"list", json::array()}};
  for (int i = 0; i < 200; ++i) big["list"].push_back(i);
  platform::redaction_limits limits;
  limits.max_string_bytes = 100;
  limits.max_members = 10;
  auto out = json::parse(redact_json(big.dump(), limits));
  CHECK(out["body"].get<std::string>().rfind(std::string(100, 'x') + "…[truncated]", 0) == 0);
  CHECK(out["list"].size() == 11);
  CHECK(out["list"][10] == "[190 more]");
}

TEST_CASE("the whole result never exceeds the total limit and stays valid JSON") {
  json wide = json::object();
  for (int i = 0; i < 40; ++i) wide["field" + std::to_string(i)] = std::string(900, 'a' + i % 26);
  platform::redaction_limits limits;
  limits.max_total_bytes = 2048;
  std::string out = redact_json(wide.dump(), limits);
  CHECK(out.size() <= 2048);
  CHECK_NOTHROW((void)json::parse(out));
}

TEST_CASE("input that is not JSON becomes a bounded JSON string") {
  auto out = json::parse(redact_json("Authorization: Bearer qqq and more"));
  REQUIRE(out.is_string());
  CHECK(out.get<std::string>() == "Authorization: Bearer [REDACTED] and more");
}

TEST_CASE("deep nesting is cut at the depth limit") {
  std::string deep;
  for (int i = 0; i < 50; ++i) deep += "{\"a\":";
  deep += "1";
  for (int i = 0; i < 50; ++i) deep += "}";
  platform::redaction_limits limits;
  limits.max_depth = 3;
  auto out = json::parse(redact_json(deep, limits));
  CHECK(out["a"]["a"]["a"] == "[truncated]");
}

}  // namespace redaction_test
