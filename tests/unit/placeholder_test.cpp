#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/agents_config.hpp"
#include "platform/placeholder.hpp"

namespace placeholder_test {

using platform::parse_placeholder_template;
using platform::placeholder;

namespace {

// The template as a readable list: literals quoted, placeholders as `in:a.b` / `secret:N`.
std::vector<std::string> shape(std::string_view text) {
  auto t = parse_placeholder_template(text);
  std::string why = t ? std::string() : t.error().message;
  INFO(why);
  REQUIRE(t.has_value());
  std::vector<std::string> out;
  for (const auto& part : t->parts) {
    if (!part.is_placeholder) out.push_back("'" + part.literal + "'");
    else out.push_back((part.ref.k == placeholder::kind::secret ? "secret:" : "in:") + part.ref.path);
  }
  return out;
}

platform::error parse_error(std::string_view text) {
  auto t = parse_placeholder_template(text);
  REQUIRE_FALSE(t.has_value());
  return t.error();
}

using strings = std::vector<std::string>;

}  // namespace

TEST_CASE("plain text is one literal part; empty text has no parts") {
  CHECK(shape("https://api.example.com/v1") == strings{"'https://api.example.com/v1'"});
  CHECK(shape("").empty());
}

TEST_CASE("input and secret placeholders between literals") {
  CHECK(shape("Bearer {{secrets.API_KEY}}") == strings{"'Bearer '", "secret:API_KEY"});
  CHECK(shape("/users/{{user.id}}/posts?tag={{tag}}") ==
        strings{"'/users/'", "in:user.id", "'/posts?tag='", "in:tag"});
  CHECK(shape("{{a}}{{b}}") == strings{"in:a", "in:b"});
}

TEST_CASE("spaces inside the braces are allowed around the path only") {
  CHECK(shape("{{ a.b }}") == strings{"in:a.b"});
  CHECK(shape("{{   secrets.K}}") == strings{"secret:K"});
  CHECK(parse_error("{{a .b}}").code == platform::api_error::placeholder_invalid_path);
  CHECK(parse_error("{{\ta}}").code == platform::api_error::placeholder_invalid_path);
}

TEST_CASE("names allow letters, digits, underscore and hyphen, not leading digit or hyphen") {
  CHECK(shape("{{_x-1.y_2-}}") == strings{"in:_x-1.y_2-"});
  CHECK(shape("{{secrets.my-key_2}}") == strings{"secret:my-key_2"});
  CHECK(parse_error("{{1a}}").code == platform::api_error::placeholder_invalid_path);
  CHECK(parse_error("{{-a}}").code == platform::api_error::placeholder_invalid_path);
  CHECK(parse_error("{{a.}}").code == platform::api_error::placeholder_invalid_path);
  CHECK(parse_error("{{.a}}").code == platform::api_error::placeholder_invalid_path);
  CHECK(parse_error("{{a..b}}").code == platform::api_error::placeholder_invalid_path);
  CHECK(parse_error("{{a/b}}").code == platform::api_error::placeholder_invalid_path);
  CHECK(parse_error("{{caf\xC3\xA9}}").code == platform::api_error::placeholder_invalid_path);
}

TEST_CASE("placeholder steps, offset and length") {
  auto t = parse_placeholder_template("ab{{ x.y.z }}cd{{secrets.S}}");
  REQUIRE(t);
  auto ps = t->placeholders();
  REQUIRE(ps.size() == 2);
  CHECK(ps[0].k == placeholder::kind::input);
  CHECK(ps[0].path == "x.y.z");
  CHECK(ps[0].steps == strings{"x", "y", "z"});
  CHECK(ps[0].offset == 2);
  CHECK(ps[0].length == 11);
  CHECK(ps[1].k == placeholder::kind::secret);
  CHECK(ps[1].path == "S");
  CHECK(ps[1].steps == strings{"S"});
  CHECK(ps[1].offset == 15);
  CHECK(ps[1].length == 13);
}

TEST_CASE("secrets needs exactly one name after it") {
  CHECK(parse_error("{{secrets}}").code == platform::api_error::placeholder_invalid_path);
  auto e = parse_error("x{{secrets.a.b}}");
  CHECK(e.code == platform::api_error::placeholder_invalid_path);
  CHECK(e.message.find("at byte 1") != std::string::npos);
  CHECK(e.message.find("secrets.NAME") != std::string::npos);
  // Only the exact lower-case root names a secret.
  CHECK(shape("{{Secrets.a.b}}") == strings{"in:Secrets.a.b"});
  CHECK(shape("{{secretsX.a}}") == strings{"in:secretsX.a"});
}

TEST_CASE("errors carry the code and the byte offset of the opening braces") {
  auto unclosed = parse_error("abc{{name");
  CHECK(unclosed.code == platform::api_error::placeholder_unclosed);
  CHECK(unclosed.message.find("at byte 3") != std::string::npos);
  CHECK(parse_error("{{a}").code == platform::api_error::placeholder_unclosed);
  CHECK(parse_error("{{a}} then {{").code == platform::api_error::placeholder_unclosed);

  auto empty = parse_error("0123456{{ }}");
  CHECK(empty.code == platform::api_error::placeholder_empty);
  CHECK(empty.message.find("at byte 7") != std::string::npos);
  CHECK(parse_error("{{}}").code == platform::api_error::placeholder_empty);

  auto bad = parse_error("\xE2\x82\xAC {{a b}}");  // offsets count bytes, not characters
  CHECK(bad.code == platform::api_error::placeholder_invalid_path);
  CHECK(bad.message.find("at byte 4") != std::string::npos);
}

TEST_CASE("error messages never echo unprintable template bytes") {
  auto e = parse_error(std::string("{{a\x01\xFF}}"));
  CHECK(e.message.find('\x01') == std::string::npos);
  CHECK(e.message.find('\xFF') == std::string::npos);
  CHECK(parse_error("{{a b}}").message.find("`a b`") != std::string::npos);
}

TEST_CASE("single braces and lone closing braces are literal") {
  CHECK(shape("{a} }} { }") == strings{"'{a} }} { }'"});
  CHECK(shape("{\"id\":{{id}}}") == strings{"'{\"id\":'", "in:id", "'}'"});
  CHECK(shape("{{a}}}") == strings{"in:a", "'}'"});
  CHECK(shape("}}{{a}}") == strings{"'}}'", "in:a"});
}

TEST_CASE("triple braces are an error, not a guess") {
  auto e = parse_error("{{{x}}}");
  CHECK(e.code == platform::api_error::placeholder_invalid_path);
  CHECK(e.message.find("at byte 0") != std::string::npos);
  CHECK(e.message.find("triple") != std::string::npos);
  CHECK(parse_error("a{{{x}}").code == platform::api_error::placeholder_invalid_path);
}

TEST_CASE("unicode around placeholders is kept byte for byte") {
  CHECK(shape("h\xC3\xA9llo {{name}} \xF0\x9F\x98\x80") ==
        strings{"'h\xC3\xA9llo '", "in:name", "' \xF0\x9F\x98\x80'"});
}

TEST_CASE("is_single_placeholder only for a whole-string placeholder") {
  CHECK(parse_placeholder_template("{{a}}")->is_single_placeholder());
  CHECK(parse_placeholder_template("{{ a }}")->is_single_placeholder());
  CHECK(parse_placeholder_template("{{secrets.K}}")->is_single_placeholder());
  CHECK_FALSE(parse_placeholder_template(" {{a}}")->is_single_placeholder());
  CHECK_FALSE(parse_placeholder_template("{{a}}{{b}}")->is_single_placeholder());
  CHECK_FALSE(parse_placeholder_template("a")->is_single_placeholder());
  CHECK_FALSE(parse_placeholder_template("")->is_single_placeholder());
}

TEST_CASE("canonical text drops spaces and parses back to the same parts") {
  auto t = parse_placeholder_template("x {{ a.b }} y {{secrets.K}}}");
  REQUIRE(t);
  std::string canon = platform::canonical_text(*t);
  CHECK(canon == "x {{a.b}} y {{secrets.K}}}");
  CHECK(shape(canon) == shape("x {{ a.b }} y {{secrets.K}}}"));
}

TEST_CASE("raw slices of the parts reproduce the template exactly") {
  std::string text = "pre {{ a }} mid{{secrets.B}}} end";
  auto t = parse_placeholder_template(text);
  REQUIRE(t);
  std::string rebuilt;
  for (const auto& part : t->parts) {
    rebuilt += part.is_placeholder ? text.substr(part.ref.offset, part.ref.length) : part.literal;
  }
  CHECK(rebuilt == text);
}

TEST_CASE("endpoint usage lists input paths and secret names sorted and unique") {
  platform::tool_endpoint ep;
  ep.method = "POST";
  ep.url = "https://api.example.com/{{org}}/items/{{item.id}}";
  ep.headers = {{"Authorization", "Bearer {{secrets.TOKEN}}"}, {"X-Org", "{{org}}"}};
  ep.query_params = {{"q", "{{query}}"}, {"limit", "10"}};
  ep.body_json = R"({"a":"{{body.a}}","list":["{{secrets.EXTRA}}",1,{"k":"x {{org}}"}],"{{key}}":"v"})";
  auto usage = platform::endpoint_placeholder_usage(ep);
  REQUIRE(usage);
  CHECK(usage->input_paths == strings{"body.a", "item.id", "org", "query"});  // keys are not read
  CHECK(usage->secret_names == strings{"EXTRA", "TOKEN"});
}

TEST_CASE("endpoint usage of a tool without placeholders is empty") {
  platform::tool_endpoint ep;
  ep.method = "GET";
  ep.url = "https://api.example.com/status";
  auto usage = platform::endpoint_placeholder_usage(ep);
  REQUIRE(usage);
  CHECK(usage->input_paths.empty());
  CHECK(usage->secret_names.empty());
}

TEST_CASE("endpoint usage errors name the site") {
  platform::tool_endpoint ep;
  ep.url = "https://x/";
  ep.headers = {{"X-Api-Key", "{{secrets.}}"}};
  auto usage = platform::endpoint_placeholder_usage(ep);
  REQUIRE_FALSE(usage);
  CHECK(usage.error().code == platform::api_error::placeholder_invalid_path);
  CHECK(usage.error().message.rfind(R"(endpoint.headers["X-Api-Key"]: )", 0) == 0);

  ep.headers.clear();
  ep.body_json = R"({"items":[{"q":"{{"}]})";
  usage = platform::endpoint_placeholder_usage(ep);
  REQUIRE_FALSE(usage);
  CHECK(usage.error().code == platform::api_error::placeholder_unclosed);
  CHECK(usage.error().message.rfind("endpoint.body.items[0].q: ", 0) == 0);

  ep.body_json = "{not json";
  usage = platform::endpoint_placeholder_usage(ep);
  REQUIRE_FALSE(usage);
  CHECK(usage.error().code == platform::api_error::invalid_body_json);
}

TEST_CASE("endpoint template sites list every value with its path") {
  platform::tool_endpoint ep;
  ep.url = "https://x/{{a}}";
  ep.headers = {{"H", "h"}};
  ep.query_params = {{"q", "v"}};
  ep.body_json = R"({"o":{"s":"t"},"n":1,"arr":["u"]})";
  auto sites = platform::endpoint_template_sites(ep);
  REQUIRE(sites);
  std::vector<std::string> paths;
  for (const auto& s : *sites) paths.push_back(s.path + "=" + s.text);
  CHECK(paths == strings{"endpoint.url=https://x/{{a}}", "endpoint.headers.H=h",
                         "endpoint.queryParams.q=v", "endpoint.body.o.s=t", "endpoint.body.arr[0]=u"});
}

TEST_CASE("very deep bodies are refused instead of recursing without bound") {
  platform::tool_endpoint ep;
  ep.url = "https://x/";
  ep.body_json = std::string(10000, '[') + std::string(10000, ']');
  auto sites = platform::endpoint_template_sites(ep);
  REQUIRE_FALSE(sites);
  CHECK(sites.error().code == platform::api_error::invalid_body_json);
}

}  // namespace placeholder_test
