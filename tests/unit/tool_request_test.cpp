#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/integration_error.hpp"
#include "platform/integration_tool_result.hpp"
#include "platform/tool_request.hpp"

namespace tool_request_test {

using platform::build_tool_request;
using platform::integration_error;
using platform::error_category;
using platform::integration_tool_result;
using platform::tool;
using nlohmann::json;

namespace {

using header_list = std::map<std::string, std::string>;

tool make_tool(std::string method, std::string url, header_list headers = {}, header_list query = {},
               std::optional<std::string> body = {}) {
  tool t;
  t.type = platform::tool_type::custom;
  t.name = "lookup";
  t.description = "test tool";
  t.integration = platform::tool_integration{"Example", "example.com", "default", {}, {}};
  t.endpoint = platform::tool_endpoint{std::move(method), std::move(url), std::move(headers),
                                       std::move(query), std::move(body)};
  return t;
}

struct fake_secrets {
  std::map<std::string, std::string> values;
  std::map<std::string, int> calls;

  platform::secret_resolver resolver() {
    return [this](std::string_view name) -> std::optional<std::string> {
      ++calls[std::string(name)];
      auto it = values.find(std::string(name));
      if (it == values.end()) return std::nullopt;
      return it->second;
    };
  }
};

platform::tool_request ok(const tool& t, std::string_view input, fake_secrets secrets = {},
                          platform::tool_request_options options = {}) {
  auto r = build_tool_request(t, input, secrets.resolver(), options);
  std::string why = r ? std::string() : r.error().to_json();
  INFO(why);
  REQUIRE(r.has_value());
  return *r;
}

integration_tool_result failure(const tool& t, std::string_view input, fake_secrets secrets = {},
                                platform::tool_request_options options = {}) {
  auto r = build_tool_request(t, input, secrets.resolver(), options);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

std::string url_of(const tool& t, std::string_view input, fake_secrets secrets = {}) {
  return ok(t, input, std::move(secrets)).request.url;
}

std::string header(const platform::http_request& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "<absent>";
}

json body_of(const platform::http_request& r) {
  REQUIRE(r.body.has_value());
  return json::parse(*r.body);
}

void check_failure(const integration_tool_result& f, error_category c, std::string_view code) {
  CHECK_FALSE(f.success);
  CHECK_FALSE(f.mock);
  CHECK(f.category == c);
  CHECK((f.error_code ? code_of(*f.error_code) : std::string_view()) == code);
  CHECK(f.retryable == false);
  CHECK(f.can_request_builder_repair == (c == error_category::input || c == error_category::spec));
  CHECK(f.error.has_value());
  CHECK(f.resolution.has_value());
}

}  // namespace

// ---- url ----

TEST_CASE("path and query placeholders are rendered and the method upper-cased") {
  auto t = make_tool("get", "https://api.example.com/users/{{user.id}}/posts?tag={{tag}}");
  auto r = ok(t, R"({"user":{"id":"u42"},"tag":"news"})");
  CHECK(r.request.method == "GET");
  CHECK(r.request.url == "https://api.example.com/users/u42/posts?tag=news");
  CHECK_FALSE(r.request.body.has_value());
  CHECK(r.request.content_type.empty());
}

TEST_CASE("values in the path are percent-encoded, slash included") {
  auto t = make_tool("GET", "https://api.example.com/files/{{name}}");
  CHECK(url_of(t, R"({"name":"a/b?c#d&e=f g+h%"})") ==
        "https://api.example.com/files/a%2Fb%3Fc%23d%26e%3Df%20g%2Bh%25");
  CHECK(url_of(t, R"({"name":"caf\u00e9 \ud83d\ude00"})") ==
        "https://api.example.com/files/caf%C3%A9%20%F0%9F%98%80");
  CHECK(url_of(t, R"({"name":"A-z_0.9~"})") == "https://api.example.com/files/A-z_0.9~");
}

TEST_CASE("values in the url query cannot add parameters") {
  auto t = make_tool("GET", "https://api.example.com/search?q={{q}}&page=1");
  CHECK(url_of(t, R"({"q":"x&admin=1#frag"})") ==
        "https://api.example.com/search?q=x%26admin%3D1%23frag&page=1");
}

TEST_CASE("numbers and booleans render as JSON text; other values are refused in the url") {
  auto t = make_tool("GET", "https://api.example.com/items/{{n}}");
  CHECK(url_of(t, R"({"n":42})") == "https://api.example.com/items/42");
  CHECK(url_of(t, R"({"n":-1.5})") == "https://api.example.com/items/-1.5");
  CHECK(url_of(t, R"({"n":true})") == "https://api.example.com/items/true");
  for (const char* input : {R"({"n":null})", R"({"n":{"a":1}})", R"({"n":[1]})"}) {
    auto f = failure(t, input);
    check_failure(f, error_category::input, "INVALID_INPUT");
    CHECK(f.error->find("n") != std::string::npos);
  }
}

TEST_CASE("a value cannot make a path segment empty, dot or dot-dot") {
  auto t = make_tool("DELETE", "https://api.example.com/items/{{id}}/tags");
  for (const char* input : {R"({"id":""})", R"({"id":"."})", R"({"id":".."})"}) {
    check_failure(failure(t, input), error_category::input, "INVALID_INPUT");
  }
  auto last = make_tool("DELETE", "https://api.example.com/items/{{id}}");
  check_failure(failure(last, R"({"id":""})"), error_category::input, "INVALID_INPUT");
  check_failure(failure(last, R"({"id":".."})"), error_category::input, "INVALID_INPUT");
  // A segment with literal text around the value stays specific.
  auto prefixed = make_tool("GET", "https://api.example.com/items/v{{n}}");
  CHECK(url_of(prefixed, R"({"n":""})") == "https://api.example.com/items/v");
  CHECK(url_of(t, R"({"id":"..."})") == "https://api.example.com/items/.../tags");
}

TEST_CASE("queryParams are appended with names and values encoded") {
  header_list q{{"b key", "x&y"}, {"a", "{{v}}"}};
  CHECK(url_of(make_tool("GET", "https://h.example/p", {}, q), R"({"v":"1 2"})") ==
        "https://h.example/p?a=1%202&b%20key=x%26y");
  CHECK(url_of(make_tool("GET", "https://h.example/p?z=0", {}, q), R"({"v":"?"})") ==
        "https://h.example/p?z=0&a=%3F&b%20key=x%26y");
  CHECK(url_of(make_tool("GET", "https://h.example/p?", {}, q), R"({"v":"="})") ==
        "https://h.example/p?a=%3D&b%20key=x%26y");
  CHECK(url_of(make_tool("GET", "https://h.example/p?z=0&", {}, q), R"({"v":"v"})") ==
        "https://h.example/p?z=0&a=v&b%20key=x%26y");
  CHECK(url_of(make_tool("GET", "https://h.example", {}, {{"k", "v"}}), "") == "https://h.example?k=v");
}

TEST_CASE("the url must be an absolute http(s) url without fragment or user info") {
  for (const char* url : {"ftp://h.example/x", "//h.example/x", "h.example/x", "{{secrets.BASE}}/x",
                          "https://h.example/x#top", "https://user@h.example/x", "https:///x",
                          "https://h ex/x", ""}) {
    INFO(url);
    auto f = failure(make_tool("GET", url), "", fake_secrets{{{"BASE", "https://h.example"}}, {}});
    check_failure(f, error_category::spec, "INVALID_URL");
  }
  CHECK(url_of(make_tool("GET", "HTTPS://h.example:8443/x"), "") == "https://h.example:8443/x");
  CHECK(url_of(make_tool("GET", "http://[::1]:80/x"), "") == "http://[::1]:80/x");
  CHECK(url_of(make_tool("GET", "https://h.example?x=1"), "") == "https://h.example?x=1");
}

TEST_CASE("literal url text is kept, with bytes that are not allowed in urls encoded") {
  CHECK(url_of(make_tool("GET", "https://h.example/a b/%41/\xC3\xA9?q=a b"), "") ==
        "https://h.example/a%20b/%41/%C3%A9?q=a%20b");
}

TEST_CASE("no placeholder may choose the host, not even a secret") {
  for (const char* url : {"https://{{region}}.api.example.com/x", "https://{{secrets.SHOP}}.shop.example/x",
                          "https://api.example.com:{{port}}/x", "https://api.example.com{{p}}"}) {
    INFO(url);
    auto f = failure(make_tool("GET", url), R"({"region":"eu","port":1,"p":"x"})",
                     fake_secrets{{{"SHOP", "s"}}, {}});
    check_failure(f, error_category::spec, "PLACEHOLDER_IN_HOST");
  }
}

TEST_CASE("over-long urls fail with category limit") {
  auto t = make_tool("GET", "https://h.example/{{q}}");
  std::string big(platform::max_request_url_bytes, 'a');
  auto f = failure(t, json{{"q", big}}.dump());
  CHECK(f.category == error_category::limit);
  CHECK(f.error_code == platform::integration_error::url_too_long);
  CHECK(f.can_request_builder_repair == false);
}

// ---- headers ----

TEST_CASE("header values are rendered raw and kept in name order") {
  auto t = make_tool("GET", "https://h.example/x",
                     {{"X-User", "{{user}}"}, {"Accept", "application/json"}, {"X-N", "n={{n}}"}});
  auto r = ok(t, R"({"user":"Zo\u00eb Smith","n":3})");
  REQUIRE(r.request.headers.size() == 3);
  CHECK(r.request.headers[0] == std::pair<std::string, std::string>{"Accept", "application/json"});
  CHECK(r.request.headers[1] == std::pair<std::string, std::string>{"X-N", "n=3"});
  CHECK(r.request.headers[2] == std::pair<std::string, std::string>{"X-User", "Zo\xC3\xAB Smith"});
}

TEST_CASE("CR, LF and NUL from input never reach a header") {
  auto t = make_tool("GET", "https://h.example/x", {{"X-Q", "{{q}}"}});
  for (const char* input : {R"({"q":"a\r\nX-Evil: 1"})", R"({"q":"a\nb"})", R"({"q":"a\u0000b"})",
                            R"({"q":"a\rb"})", R"({"q":{"o":1}})"}) {
    INFO(input);
    check_failure(failure(t, input), error_category::input, "INVALID_INPUT");
  }
  CHECK(header(ok(t, R"({"q":"tab\there"})").request, "X-Q") == "tab\there");
}

TEST_CASE("a secret with a line break fails as configuration and is never echoed") {
  auto t = make_tool("GET", "https://h.example/x", {{"X-Key", "{{secrets.KEY}}"}});
  auto f = failure(t, "", fake_secrets{{{"KEY", "CANARY-1\r\nX: y"}}, {}});
  check_failure(f, error_category::configuration, "INVALID_SECRET");
  CHECK(f.to_json().find("CANARY") == std::string::npos);
  CHECK(f.error->find("KEY") != std::string::npos);
}

TEST_CASE("header names and literal values are checked as part of the spec") {
  check_failure(failure(make_tool("GET", "https://h.example/x", {{"Bad Name", "v"}}), ""),
                error_category::spec, "INVALID_HEADER_NAME");
  check_failure(failure(make_tool("GET", "https://h.example/x", {{"X-A", "a\r\nb"}}), ""),
                error_category::spec, "INVALID_HEADER_VALUE");
  for (const char* name : {"Host", "content-length", "Transfer-Encoding", "Connection"}) {
    check_failure(failure(make_tool("GET", "https://h.example/x", {{name, "v"}}), ""),
                  error_category::spec, "FORBIDDEN_HEADER");
  }
  check_failure(failure(make_tool("GET", "https://h.example/x", {{"X-A", "1"}, {"x-a", "2"}}), ""),
                error_category::spec, "DUPLICATE_HEADER");
}

// ---- body ----

TEST_CASE("a body string that is one placeholder keeps the input value's JSON type") {
  auto t = make_tool("POST", "https://h.example/x", {}, {},
                     R"({"n":"{{n}}","b":"{{b}}","o":"{{o}}","a":"{{a}}","z":"{{z}}","s":"{{ s }}"})");
  auto r = ok(t, R"({"n":12.5,"b":false,"o":{"k":[1,2]},"a":[1,"x",null],"z":null,"s":"text"})");
  auto body = body_of(r.request);
  CHECK(body["n"] == 12.5);
  CHECK(body["b"] == false);
  CHECK(body["o"] == json{{"k", {1, 2}}});
  CHECK(body["a"] == json::parse(R"([1,"x",null])"));
  CHECK(body["z"].is_null());
  CHECK(body["s"] == "text");
  CHECK(r.request.content_type == "application/json");
  CHECK(header(r.request, "Content-Type") == "application/json");
}

TEST_CASE("embedded body placeholders are stringified") {
  auto t = make_tool("POST", "https://h.example/x", {}, {},
                     R"({"msg":"id={{n}} ok={{b}} o={{o}} z={{z}} s={{s}}"})");
  auto body = body_of(ok(t, R"({"n":5,"b":true,"o":{"a":[1]},"z":null,"s":"q\"t"})").request);
  CHECK(body["msg"] == R"(id=5 ok=true o={"a":[1]} z=null s=q"t)");
}

TEST_CASE("body structure, key order and literal keys are kept") {
  auto t = make_tool("PUT", "https://h.example/x", {}, {},
                     R"({"z":1,"{{k}}":"{{k}}","a":[{"deep":"{{v}}"},true,null],"m":"plain"})");
  auto r = ok(t, R"({"k":"key","v":[]})");
  CHECK(*r.request.body == R"({"z":1,"{{k}}":"key","a":[{"deep":[]},true,null],"m":"plain"})");
}

TEST_CASE("a whole-body placeholder sends the input value as the body") {
  auto t = make_tool("POST", "https://h.example/x", {}, {}, R"("{{payload}}")");
  CHECK(*ok(t, R"({"payload":{"x":[1,2]}})").request.body == R"({"x":[1,2]})");
}

TEST_CASE("a declared Content-Type is kept and picks the body encoding") {
  auto form = make_tool("POST", "https://h.example/x",
                        {{"content-type", "application/x-www-form-urlencoded; charset=utf-8"}}, {},
                        R"({"q":"{{q}}","n":"{{n}}","z":null,"o":{"a":1}})");
  auto r = ok(form, R"({"q":"a b&c=d","n":7})");
  CHECK(*r.request.body == "q=a%20b%26c%3Dd&n=7&z=&o=%7B%22a%22%3A1%7D");
  CHECK(r.request.content_type == "application/x-www-form-urlencoded; charset=utf-8");
  CHECK(r.request.headers.size() == 1);

  auto text = make_tool("POST", "https://h.example/x", {{"Content-Type", "text/plain"}}, {},
                        R"("Hello {{name}}")");
  CHECK(*ok(text, R"({"name":"Ann"})").request.body == "Hello Ann");

  auto vendor = make_tool("POST", "https://h.example/x",
                          {{"Content-Type", "application/vnd.api+json"}}, {}, R"({"a":"{{a}}"})");
  CHECK(*ok(vendor, R"({"a":"x"})").request.body == R"({"a":"x"})");

  auto bad_form = make_tool("POST", "https://h.example/x",
                            {{"Content-Type", "application/x-www-form-urlencoded"}}, {}, R"("{{a}}")");
  check_failure(failure(bad_form, R"({"a":"x"})"), error_category::spec, "INVALID_BODY");
}

TEST_CASE("GET and HEAD cannot carry a body; a null body is no body") {
  check_failure(failure(make_tool("GET", "https://h.example/x", {}, {}, R"({"a":1})"), ""),
                error_category::spec, "BODY_NOT_ALLOWED");
  check_failure(failure(make_tool("head", "https://h.example/x", {}, {}, R"("x")"), ""),
                error_category::spec, "BODY_NOT_ALLOWED");
  auto r = ok(make_tool("GET", "https://h.example/x", {}, {}, "null"), "");
  CHECK_FALSE(r.request.body.has_value());
  CHECK(r.request.headers.empty());
}

// ---- input rules ----

TEST_CASE("empty, blank and {} input all mean no input") {
  auto t = make_tool("GET", "https://h.example/status");
  for (const char* input : {"", "  \n", "{}", " { } "}) {
    INFO(input);
    CHECK(url_of(t, input) == "https://h.example/status");
  }
}

TEST_CASE("input that is not a JSON object fails before anything else happens") {
  auto t = make_tool("GET", "https://h.example/{{id}}");
  for (const char* input : {"{", "[1]", "\"id\"", "42", "null", "{\"id\":1} x"}) {
    INFO(input);
    check_failure(failure(t, input), error_category::input, "INVALID_INPUT");
  }
  std::string deep = "{\"id\":" + std::string(200, '[') + std::string(200, ']') + "}";
  check_failure(failure(t, deep), error_category::input, "INVALID_INPUT");
  // An agent passes its input as a JSON string: one nested 100,000 levels is refused unparsed.
  std::string attack = "{\"id\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  check_failure(failure(t, attack), error_category::input, "INVALID_INPUT");
}

TEST_CASE("missing input fails with every missing path, and no secret is even looked up") {
  auto t = make_tool("POST", "https://h.example/{{org}}/items", {{"X-Key", "{{secrets.KEY}}"}},
                     {{"q", "{{query}}"}}, R"({"name":"{{item.name}}","n":"{{item.n}}"})");
  fake_secrets s{{{"KEY", "k"}}, {}};
  auto r = build_tool_request(t, R"({"org":"acme","item":{"n":1}})", s.resolver());
  REQUIRE_FALSE(r);
  check_failure(r.error(), error_category::input, "MISSING_INPUT");
  CHECK(r.error().error->find("item.name, query") != std::string::npos);
  CHECK(json::parse(*r.error().details_json) == json{{"missingInputs", {"item.name", "query"}}});
  CHECK(s.calls.empty());
}

TEST_CASE("a path through a non-object counts as missing") {
  auto t = make_tool("GET", "https://h.example/{{a.b}}");
  check_failure(failure(t, R"({"a":"text"})"), error_category::input, "MISSING_INPUT");
  check_failure(failure(t, ""), error_category::input, "MISSING_INPUT");
}

TEST_CASE("input given to a tool without input placeholders fails") {
  auto t = make_tool("GET", "https://h.example/all", {{"X-Key", "{{secrets.KEY}}"}});
  auto f = failure(t, R"({"id":"1"})", fake_secrets{{{"KEY", "k"}}, {}});
  check_failure(f, error_category::input, "UNEXPECTED_INPUT");
  CHECK(json::parse(*f.details_json) == json{{"inputKeys", {"id"}}});
}

TEST_CASE("input keys no placeholder reads are allowed when the endpoint reads some input") {
  auto t = make_tool("GET", "https://h.example/items/{{id}}");
  CHECK(url_of(t, R"({"id":"1","note":"ignored"})") == "https://h.example/items/1");
}

// ---- secrets ----

TEST_CASE("secrets are resolved once per name and reported by name when missing") {
  auto t = make_tool("POST", "https://h.example/x?k={{secrets.A}}", {{"X-A", "{{secrets.A}}"}},
                     {{"b", "{{secrets.B}}"}}, R"({"a":"{{secrets.A}}","c":"{{secrets.C}}"})");
  fake_secrets s{{{"A", "va"}}, {}};
  auto r = build_tool_request(t, "", s.resolver());
  REQUIRE_FALSE(r);
  check_failure(r.error(), error_category::configuration, "MISSING_SECRET");
  CHECK(r.error().error->find("B, C") != std::string::npos);
  CHECK(json::parse(*r.error().details_json) == json{{"missingSecrets", {"B", "C"}}});
  CHECK(s.calls == std::map<std::string, int>{{"A", 1}, {"B", 1}, {"C", 1}});
  CHECK(r.error().to_json().find("va") == std::string::npos);
}

TEST_CASE("missing input is reported before missing secrets") {
  auto t = make_tool("GET", "https://h.example/{{id}}", {{"X-Key", "{{secrets.KEY}}"}});
  check_failure(failure(t, ""), error_category::input, "MISSING_INPUT");
}

TEST_CASE("the redacted view replaces every secret value with its marker") {
  auto t = make_tool("POST", "https://h.example/{{secrets.PATH}}/x?key={{secrets.KEY}}",
                     {{"Authorization", "Bearer {{secrets.KEY}}"}}, {{"sig", "{{secrets.KEY}}"}},
                     R"({"token":"{{secrets.KEY}}","msg":"key is {{secrets.KEY}}"})");
  fake_secrets s{{{"KEY", "s3cr3t/+="}, {"PATH", "p q"}}, {}};
  auto r = ok(t, "", s);
  CHECK(r.secret_names == std::vector<std::string>{"KEY", "PATH"});
  CHECK(r.request.url == "https://h.example/p%20q/x?key=s3cr3t%2F%2B%3D&sig=s3cr3t%2F%2B%3D");
  CHECK(header(r.request, "Authorization") == "Bearer s3cr3t/+=");
  CHECK(body_of(r.request) == json{{"token", "s3cr3t/+="}, {"msg", "key is s3cr3t/+="}});

  CHECK(r.redacted.url == "https://h.example/[REDACTED:PATH]/x?key=[REDACTED:KEY]&sig=[REDACTED:KEY]");
  CHECK(header(r.redacted, "Authorization") == "Bearer [REDACTED:KEY]");
  CHECK(body_of(r.redacted) == json{{"token", "[REDACTED:KEY]"}, {"msg", "key is [REDACTED:KEY]"}});
  CHECK(platform::to_json(r.redacted).find("s3cr3t") == std::string::npos);
}

TEST_CASE("a canary secret never appears in any failure") {
  const std::string canary = "CANARY-7f3a9";
  fake_secrets s{{{"KEY", canary}, {"BAD", canary + "\n"}}, {}};
  std::vector<std::pair<tool, std::string>> cases = {
      {make_tool("GET", "https://h.example/{{q}}", {{"K", "{{secrets.KEY}}"}}), R"({"q":{"o":1}})"},
      {make_tool("GET", "https://h.example/{{q}}", {{"K", "{{secrets.KEY}}"}, {"Q", "{{q}}"}}),
       R"({"q":"a\r\nb"})"},
      {make_tool("GET", "https://h.example/x", {{"K", "{{secrets.BAD}}"}}), ""},
      {make_tool("GET", "https://h.example/x", {{"K", "{{secrets.KEY}}"}}, {{"q", "{{q}}"}}),
       R"({"q":[1]})"},
      {make_tool("GET", "https://h.example/{{q}}", {{"K", "{{secrets.KEY}}"}}), R"({"q":".."})"},
      {make_tool("GET", "https://h.example/{{secrets.KEY}}/{{q}}"),
       json{{"q", std::string(platform::max_request_url_bytes, 'x')}}.dump()},
      {make_tool("POST", "https://h.example/x", {{"Content-Type", "application/x-www-form-urlencoded"}},
                 {}, R"("{{secrets.KEY}}")"),
       ""},
      {make_tool("GET", "https://h.example/x", {{"K", "{{secrets.KEY}}"}, {"M", "{{secrets.MISSING}}"}}),
       ""},
      {make_tool("GET", "https://h.example/x", {{"K", "{{secrets.KEY}}"}}), R"({"x":1})"},
      {make_tool("GET", "https://h.example/{{q}}", {{"K", "{{secrets.KEY}}"}}), "{"},
  };
  std::vector<std::string> codes;
  for (const auto& [t, input] : cases) {
    auto r = build_tool_request(t, input, s.resolver());
    REQUIRE_FALSE(r);
    std::string text = r.error().to_json();
    INFO(text);
    CHECK(text.find("CANARY") == std::string::npos);
    codes.push_back(r.error().error_code ? std::string(code_of(*r.error().error_code)) : "");
  }
  // Every failure path that runs after secrets are known is covered.
  CHECK(codes == std::vector<std::string>{"INVALID_INPUT", "INVALID_INPUT", "INVALID_SECRET",
                                          "INVALID_INPUT", "INVALID_INPUT", "URL_TOO_LONG",
                                          "INVALID_BODY", "MISSING_SECRET", "UNEXPECTED_INPUT",
                                          "INVALID_INPUT"});
}

// ---- oauth ----

TEST_CASE("OAuth tools get the bearer token from the caller, redacted in the view") {
  auto t = make_tool("GET", "https://h.example/me");
  t.integration->oauth2 = platform::oauth2_auth{"google", "triggering_user", "a", "b", {"s"}};
  auto r = ok(t, "", {}, platform::tool_request_options{"tok-123"});
  CHECK(header(r.request, "Authorization") == "Bearer tok-123");
  CHECK(header(r.redacted, "Authorization") == "Bearer [REDACTED:oauth_access_token]");

  check_failure(failure(t, ""), error_category::credentials, "MISSING_ACCESS_TOKEN");
  auto bad = failure(t, "", {}, platform::tool_request_options{"Zq9tok\r\nX: 1"});
  check_failure(bad, error_category::credentials, "INVALID_ACCESS_TOKEN");
  CHECK(bad.to_json().find("Zq9") == std::string::npos);

  auto explicit_auth = make_tool("GET", "https://h.example/me", {{"authorization", "Bearer x"}});
  explicit_auth.integration->oauth2 = t.integration->oauth2;
  check_failure(failure(explicit_auth, "", {}, platform::tool_request_options{"t"}),
                error_category::spec, "AUTHORIZATION_HEADER_NOT_ALLOWED");
}

// ---- spec problems ----

TEST_CASE("spec problems of the tool itself are repairable spec failures") {
  tool builtin;
  builtin.type = platform::tool_type::builtin;
  builtin.name = "WebSearch";
  check_failure(failure(builtin, ""), error_category::spec, "NOT_A_CUSTOM_TOOL");
  check_failure(failure(make_tool("TRACE", "https://h.example/x"), ""), error_category::spec,
                "INVALID_METHOD");
  check_failure(failure(make_tool("CONNECT", "https://h.example/x"), ""), error_category::spec,
                "INVALID_METHOD");
  auto f = failure(make_tool("GET", "https://h.example/{{a b}}"), "");
  check_failure(f, error_category::spec, "INVALID_PLACEHOLDER");
  CHECK(f.error->find("endpoint.url") != std::string::npos);
  check_failure(failure(make_tool("POST", "https://h.example/x", {}, {}, "{bad"), ""),
                error_category::spec, "INVALID_BODY");
  check_failure(failure(make_tool("GET", "https://h.example/x", {}, {{"q", "{{"}}), ""),
                error_category::spec, "INVALID_PLACEHOLDER");
}

// ---- result shapes ----

TEST_CASE("integration tool result failure JSON has the spec's field names") {
  auto f = integration_tool_result::failure(integration_error::missing_input, "Missing a.",
                                            "Pass a.", R"({"missingInputs":["a"]})");
  CHECK(f.to_json() ==
        R"({"success":false,"mock":false,"error":"Missing a.","errorCode":"MISSING_INPUT",)"
        R"("errorCategory":"input","resolution":"Pass a.","retryable":false,)"
        R"("canRequestBuilderRepair":true,"details":{"missingInputs":["a"]}})");
}

TEST_CASE("integration tool result success, mock and bounded details") {
  integration_tool_result r;
  r.success = true;
  r.mock = true;
  r.mock_reason = "integration not configured";
  r.status_code = 200;
  r.data_json = R"({"b":1,"a":[true]})";
  CHECK(r.to_json() ==
        R"({"success":true,"data":{"b":1,"a":[true]},"mock":true,"mockReason":"integration not configured","statusCode":200})");
  r.data_json = "not json";
  CHECK(json::parse(r.to_json())["data"] == "not json");

  auto big = integration_tool_result::failure(integration_error::provider_http_error, "e", "r",
                                              json{{"x", std::string(5000, 'y')}}.dump());
  CHECK(json::parse(big.to_json())["details"] == json{{"truncated", true}});
  CHECK(big.can_request_builder_repair == false);
}

TEST_CASE("error categories: names round-trip; only input and spec may ask the builder") {
  for (auto c : {error_category::input, error_category::spec, error_category::configuration,
                 error_category::credentials, error_category::permission, error_category::provider,
                 error_category::network, error_category::timeout, error_category::limit,
                 error_category::guard, error_category::internal}) {
    CHECK(platform::parse_error_category(platform::to_string(c)) == c);
    CHECK(platform::can_request_builder_repair(c) ==
          (c == error_category::input || c == error_category::spec));
  }
  CHECK_FALSE(platform::parse_error_category("Input").has_value());
}

TEST_CASE("http_request JSON embeds JSON bodies and quotes others") {
  platform::http_request r{"POST", "https://h.example/x", {{"B", "2"}, {"A", "1"}}, R"({"k":1})",
                           "application/json"};
  CHECK(platform::to_json(r) ==
        R"({"method":"POST","url":"https://h.example/x","headers":{"B":"2","A":"1"},"body":{"k":1}})");
  r.body = "k=1";
  r.content_type = "application/x-www-form-urlencoded";
  CHECK(json::parse(platform::to_json(r))["body"] == "k=1");
  r.body.reset();
  CHECK(json::parse(platform::to_json(r))["body"].is_null());
}

}  // namespace tool_request_test
