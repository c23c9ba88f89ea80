// The depth and size scan that runs before any JSON text reaches a recursive parser, dump or
// copy (platform/json_limits.hpp).
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/json_limits.hpp"

namespace json_limits_test {

using namespace platform;

namespace {

std::string nested(std::size_t n, char open = '[', char close = ']') {
  return std::string(n, open) + std::string(n, close);
}

std::size_t depth_of(std::string_view text, json_limits limits = {.max_depth = 1000000, .max_bytes = 1u << 30}) {
  auto r = check_json_limits(text, limits);
  REQUIRE(r.has_value());
  return *r;
}

}  // namespace

TEST_CASE("the depth is the deepest nesting of arrays and objects; scalars are depth 0") {
  CHECK(depth_of("") == 0);
  CHECK(depth_of("1") == 0);
  CHECK(depth_of("\"text\"") == 0);
  CHECK(depth_of("[]") == 1);
  CHECK(depth_of("{}") == 1);
  CHECK(depth_of(R"({"a":[1,{"b":[[]]}],"c":{}})") == 5);
  CHECK(depth_of(R"([[1],[[2]],[3]])") == 3);  // siblings do not add up
  CHECK(depth_of(nested(64)) == 64);
}

TEST_CASE("limits: at the limit passes, one past is too_deep; longer than max_bytes is too_large") {
  json_limits l{.max_depth = 64, .max_bytes = 1000};
  CHECK(check_json_limits(nested(64), l).value() == 64);
  auto deep = check_json_limits(nested(65), l);
  REQUIRE_FALSE(deep.has_value());
  CHECK(deep.error().code == platform::api_error::too_deep);
  CHECK(deep.error().message.find("64") != std::string::npos);
  auto large = check_json_limits(std::string(1001, ' '), l);
  REQUIRE_FALSE(large.has_value());
  CHECK(large.error().code == platform::api_error::too_large);
  CHECK(check_json_limits(std::string(1000, ' '), l).has_value());
  CHECK(within_json_limits(nested(64), l));
  CHECK_FALSE(within_json_limits(nested(65), l));
  CHECK_FALSE(within_json_limits(std::string(1001, ' '), l));
  CHECK(nests_deeper_than(nested(65), 64));
  CHECK_FALSE(nests_deeper_than(nested(64), 64));
}

TEST_CASE("the defaults are a request body's; the named limits are the documented ones") {
  json_limits body;
  CHECK(body.max_depth == body_max_depth);
  CHECK(body_max_depth == 64);
  CHECK(agents_json_max_depth == 100);
  CHECK(stored_json_limits.max_depth == 1024);
  CHECK(stored_json_limits.max_depth >= agents_json_max_depth);
}

TEST_CASE("brackets inside strings do not count, whatever the escapes before them") {
  CHECK(depth_of(R"(["[[[[", "{{{{"])") == 1);
  CHECK(depth_of(R"(["\"[[[[", 1])") == 1);        // an escaped quote does not end the string
  CHECK(depth_of(R"(["\\", [[1]]])") == 3);        // an escaped backslash does not escape the quote
  CHECK(depth_of(R"(["\\\"[[", 1])") == 1);        // \\ then \" : still inside
  CHECK(depth_of(R"(["\u0022[[[", 1])") == 1);     // \u0022 is a quote in the value, not in the text
  CHECK(depth_of(R"({"[":{"]":[]}})") == 3);       // keys are strings too
  json_limits l{.max_depth = 2};
  CHECK(within_json_limits("[\"" + std::string(100000, '[') + "\"]", l));
}

TEST_CASE("a 100,000-level body (the issue's attack) is refused at once, without recursion") {
  const std::string attack = nested(100000);  // 200 KB
  auto began = std::chrono::steady_clock::now();
  auto r = check_json_limits(attack, {.max_depth = body_max_depth, .max_bytes = 8u << 20});
  auto took = std::chrono::steady_clock::now() - began;
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == platform::api_error::too_deep);
  CHECK(took < std::chrono::milliseconds(100));
  // Objects, mixed and unterminated nests the same way; the whole text can be scanned when the
  // limit allows it, in constant stack.
  CHECK_FALSE(within_json_limits(std::string(100000, '{'), {}));
  CHECK_FALSE(within_json_limits(nested(50000, '[', ']') + nested(50000, '{', '}'), {}));
  CHECK(depth_of(nested(1000000)) == 1000000);
}

TEST_CASE("malformed text is left to the parser: the scan never reads past the end or lets closers buy depth") {
  CHECK(depth_of("[\"\\") == 1);           // a trailing backslash inside a string
  CHECK(depth_of("\"unterminated [[[") == 0);
  CHECK(depth_of("]]]]") == 0);
  // Unbalanced closers never make room for more openers than the limit.
  json_limits l{.max_depth = 3};
  CHECK_FALSE(within_json_limits("]]]]]]" + std::string(4, '['), l));
  CHECK_FALSE(within_json_limits("[]]]]]" + std::string(4, '['), l));
  CHECK(within_json_limits(std::string_view("\x00\xff[", 3), l));  // bytes are bytes
}

TEST_CASE("the scan agrees with the parser on valid documents") {
  // The depth nlohmann sees (its own depth is what recursion over the value costs); the
  // libFuzzer target compares the two on every accepted input.
  for (auto [text, depth] : {std::pair<const char*, std::size_t>{
                                 R"({"messages":[{"id":"m1","role":"user","parts":[{"type":"text","text":"hi"}],)"
                                 R"("metadata":{"a":{"b":[1,2,{"c":null}]}}}]})", 7},
                             {R"([[], {}, [[[]]], {"k": [{"k": [{}]}]}])", 6},
                             {R"("[{\"not\": \"nested\"}]")", 0}}) {
    CHECK_MESSAGE(nlohmann::json::accept(text), text);
    CHECK_MESSAGE(depth_of(text) == depth, text);
  }
}

}  // namespace json_limits_test
