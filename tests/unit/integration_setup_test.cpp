#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/integration_setup.hpp"

namespace integration_setup_test {

using json = nlohmann::ordered_json;
using platform::validate_integration_setup;
using platform::violations;

namespace {

std::string data(const std::string& name) {
  std::ifstream in(std::string(PLATFORM_TEST_DATA) + "/" + name, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string listing(const violations& v) {
  std::string out;
  for (const auto& x : v) out += x.path + " [" + x.code + "] " + x.message + "\n";
  return out;
}

violations problems(const std::string& text) {
  auto r = validate_integration_setup(text);
  CHECK(r.setup.has_value() == r.problems.empty());
  return r.problems;
}

violations problems(const json& doc) { return problems(doc.dump()); }

bool has(const violations& v, const std::string& path, const std::string& code) {
  return std::any_of(v.begin(), v.end(), [&](const auto& x) { return x.path == path && x.code == code; });
}

#define CHECK_HAS(v, path, code) CHECK_MESSAGE(has(v, path, code), "missing " << path << " [" << code << "] in:\n" << listing(v))
#define CHECK_ONLY(v, path, code)               \
  do {                                          \
    auto&& v_ = (v);                            \
    CHECK_MESSAGE(v_.size() == 1, listing(v_)); \
    CHECK_HAS(v_, path, code);                  \
  } while (0)
#define CHECK_VALID(v) CHECK_MESSAGE((v).empty(), listing(v))

json entry() {
  return json::parse(R"({"name": "Acme CRM", "domain": "acme.example", "keySlug": "default",
                         "secrets": [{"name": "ACME_KEY"}]})");
}

json doc_with(const json& e) { return {{"integrations", json::array({e})}}; }

const std::string I = "integrations[0]";

}  // namespace

TEST_CASE("a full integration-setup.json parses into typed values") {
  auto r = validate_integration_setup(data("setup/valid.json"));
  REQUIRE_MESSAGE(r.setup.has_value(), listing(r.problems));
  const auto& s = *r.setup;
  REQUIRE(s.integrations.size() == 2);
  const auto& acme = s.integrations[0];
  CHECK(acme.name == "Acme CRM");
  CHECK(acme.domain == "acme-crm.example");
  CHECK(acme.key_slug == "default");
  CHECK(acme.key_name == std::optional<std::string>("Acme CRM API key"));
  CHECK(acme.capability_label == std::optional<std::string>("Read and annotate CRM deals"));
  CHECK(acme.why.has_value());
  REQUIRE(acme.permission_groups.size() == 1);
  CHECK(acme.permission_groups[0].permissions == std::vector<std::string>{"deals.read", "notes.write"});
  REQUIRE(acme.secrets.size() == 1);
  CHECK(acme.secrets[0].name == "ACME_API_KEY");
  CHECK(acme.secrets[0].label == std::optional<std::string>("API key"));
  CHECK(acme.secrets[0].required);
  REQUIRE(acme.instructions.has_value());
  CHECK(acme.instructions->overview.has_value());
  REQUIRE(acme.instructions->steps.size() == 2);
  CHECK(acme.instructions->steps[0].url == std::optional<std::string>("https://app.acme-crm.example/settings/api"));
  CHECK_FALSE(acme.instructions->steps[1].url.has_value());
  REQUIRE(acme.instructions->links.size() == 1);
  CHECK(acme.instructions->links[0].url == "https://docs.acme-crm.example/api#keys");
  const auto& cal = s.integrations[1];
  CHECK(cal.secrets.empty());
  CHECK_FALSE(cal.instructions.has_value());
  CHECK_FALSE(cal.key_name.has_value());
}

TEST_CASE("find_integration matches domain and keySlug exactly; find_secret by name") {
  auto r = validate_integration_setup(data("setup/valid.json"));
  REQUIRE(r.setup);
  const auto& s = *r.setup;
  CHECK(s.find_integration("acme-crm.example") == &s.integrations[0]);
  CHECK(s.find_integration("acme-crm.example", "default") == &s.integrations[0]);
  CHECK(s.find_integration("acme-crm.example", "other") == nullptr);
  CHECK(s.find_integration("calendar.example.com", "calendar") == &s.integrations[1]);
  CHECK(s.find_integration("calendar.example.com") == nullptr);
  CHECK(s.find_integration("api.acme-crm.example") == nullptr);  // grants are per domain, not per subdomain
  CHECK(s.integrations[0].find_secret("ACME_API_KEY") == &s.integrations[0].secrets[0]);
  CHECK(s.integrations[0].find_secret("acme_api_key") == nullptr);
}

TEST_CASE("a minimal entry: name, domain and keySlug; required defaults to true") {
  auto r = validate_integration_setup(
      R"({"integrations": [{"name": "A", "domain": "a.example", "keySlug": "k", "secrets": [{"name": "K"}, {"name": "L", "required": false}]}]})");
  REQUIRE_MESSAGE(r.setup, listing(r.problems));
  CHECK(r.setup->integrations[0].secrets[0].required);
  CHECK_FALSE(r.setup->integrations[0].secrets[1].required);
}

TEST_CASE("empty, blank, {} and invalid documents") {
  for (std::string text : {"", " \n", "{}"}) {
    CAPTURE(text);
    CHECK_ONLY(problems(text), "", "empty_document");
  }
  CHECK_ONLY(problems(std::string("{\"integrations\": [")), "", "invalid_json");
  CHECK_ONLY(problems(std::string("[]")), "", "wrong_type");
}

TEST_CASE("integrations is a required, non-empty array") {
  auto v = problems(json{{"integration", json::array()}});
  CHECK(v.size() == 2);
  CHECK_HAS(v, "integration", "unknown_field");
  CHECK_HAS(v, "integrations", "missing_field");
  CHECK_ONLY(problems(json{{"integrations", json::array()}}), "integrations", "integrations_empty");
  CHECK_ONLY(problems(json{{"integrations", json::object()}}), "integrations", "wrong_type");
  CHECK_ONLY(problems(json{{"integrations", json::array({"acme"})}}), I, "wrong_type");
}

TEST_CASE("name, domain and keySlug are required non-empty strings") {
  json e = entry();
  e.erase("name");
  e.erase("domain");
  e["keySlug"] = "";
  auto v = problems(doc_with(e));
  CHECK(v.size() == 3);
  CHECK_HAS(v, I + ".name", "missing_field");
  CHECK_HAS(v, I + ".domain", "missing_field");
  CHECK_HAS(v, I + ".keySlug", "empty_value");
  e = entry();
  e.erase("keySlug");
  CHECK_ONLY(problems(doc_with(e)), I + ".keySlug", "missing_field");
}

TEST_CASE("domain and keySlug follow the same grammar as agents.json") {
  json e = entry();
  e["domain"] = "https://acme.example";
  CHECK_ONLY(problems(doc_with(e)), I + ".domain", "invalid_domain");
  e["domain"] = "ACME.example";
  CHECK_ONLY(problems(doc_with(e)), I + ".domain", "invalid_domain");
  e = entry();
  e["keySlug"] = "Default";
  CHECK_ONLY(problems(doc_with(e)), I + ".keySlug", "invalid_key_slug");
}

TEST_CASE("secret names follow the placeholder name grammar and are unique per integration") {
  json e = entry();
  e["secrets"] = json::parse(R"([{"name": "KEY"}, {"name": "KEY"}, {"name": "1KEY"}, {"name": "MY KEY"},
                                 {"name": "a.b"}, {"name": "_ok-2"}, {"label": "no name"}])");
  auto v = problems(doc_with(e));
  CHECK_MESSAGE(v.size() == 5, listing(v));
  CHECK_HAS(v, I + ".secrets[1].name", "duplicate_secret");
  CHECK_HAS(v, I + ".secrets[2].name", "invalid_secret_name");
  CHECK_HAS(v, I + ".secrets[3].name", "invalid_secret_name");
  CHECK_HAS(v, I + ".secrets[4].name", "invalid_secret_name");
  CHECK_HAS(v, I + ".secrets[6].name", "missing_field");
  // The same secret name in two integrations is fine.
  json other = entry();
  other["domain"] = "other.example";
  CHECK_VALID(problems(json{{"integrations", json::array({entry(), other})}}));
}

TEST_CASE("(domain, keySlug) is unique; one domain may have several slugs") {
  json a = entry();
  json b = entry();
  b["name"] = "Acme CRM again";
  json c = entry();
  c["keySlug"] = "reporting";
  auto v = problems(json{{"integrations", json::array({a, c, b})}});
  CHECK_ONLY(v, "integrations[2]", "duplicate_integration");
  CHECK(v[0].message.find("integrations[0]") != std::string::npos);
}

TEST_CASE("permission groups: name required, unique; permissions are strings") {
  json e = entry();
  e["permissionGroups"] = json::parse(R"([{"name": "Deals", "permissions": ["read", "read"]},
                                          {"name": "Deals"}, {"description": "x"}, {"name": "P", "permissions": [1]}])");
  auto v = problems(doc_with(e));
  CHECK_MESSAGE(v.size() == 4, listing(v));
  CHECK_HAS(v, I + ".permissionGroups[0].permissions[1]", "duplicate_entry");
  CHECK_HAS(v, I + ".permissionGroups[1].name", "duplicate_permission_group");
  CHECK_HAS(v, I + ".permissionGroups[2].name", "missing_field");
  CHECK_HAS(v, I + ".permissionGroups[3].permissions[0]", "wrong_type");
}

TEST_CASE("setup instructions: steps need a title, links a label and url; urls are absolute http(s)") {
  json e = entry();
  e["setupInstructions"] = json::parse(R"j({"overview": "Do it.",
     "steps": [{"title": "Open", "url": "settings/api"}, {"description": "no title"}, {"title": "ok", "url": "https://x.example/a"}],
     "links": [{"label": "Docs"}, {"label": "Docs", "url": "javascript:alert(1)"}, {"label": "D", "url": "http://docs.example/"}]})j");
  auto v = problems(doc_with(e));
  CHECK_MESSAGE(v.size() == 4, listing(v));
  const std::string s = I + ".setupInstructions";
  CHECK_HAS(v, s + ".steps[0].url", "invalid_url");
  CHECK_HAS(v, s + ".steps[1].title", "missing_field");
  CHECK_HAS(v, s + ".links[0].url", "missing_field");
  CHECK_HAS(v, s + ".links[1].url", "invalid_url");
}

TEST_CASE("unknown fields are rejected at every level") {
  json e = entry();
  e["token"] = "x";
  e["secrets"][0]["value"] = "shh";
  e["permissionGroups"] = json::parse(R"([{"name": "G", "scopes": []}])");
  e["setupInstructions"] = json::parse(R"({"steps": [{"title": "t", "link": "x"}], "video": "x"})");
  json doc = doc_with(e);
  doc["version"] = 2;
  auto v = problems(doc);
  CHECK_MESSAGE(v.size() == 6, listing(v));
  CHECK_HAS(v, "version", "unknown_field");
  CHECK_HAS(v, I + ".token", "unknown_field");
  CHECK_HAS(v, I + ".secrets[0].value", "unknown_field");
  CHECK_HAS(v, I + ".permissionGroups[0].scopes", "unknown_field");
  CHECK_HAS(v, I + ".setupInstructions.video", "unknown_field");
  CHECK_HAS(v, I + ".setupInstructions.steps[0].link", "unknown_field");
}

TEST_CASE("wrong types") {
  json e = entry();
  e["secrets"][0]["required"] = "yes";
  e["why"] = 3;
  e["permissionGroups"] = json::object();
  e["setupInstructions"] = "see docs";
  auto v = problems(doc_with(e));
  CHECK_MESSAGE(v.size() == 4, listing(v));
  CHECK_HAS(v, I + ".secrets[0].required", "wrong_type");
  CHECK_HAS(v, I + ".why", "wrong_type");
  CHECK_HAS(v, I + ".permissionGroups", "wrong_type");
  CHECK_HAS(v, I + ".setupInstructions", "wrong_type");
}

TEST_CASE("every violation is reported at once") {
  json a = entry();
  a.erase("name");
  json b = entry();
  b["domain"] = "bad domain";
  b["secrets"] = json::array({{{"name", "x y"}}});
  auto v = problems(json{{"integrations", json::array({a, b})}});
  CHECK_MESSAGE(v.size() == 3, listing(v));
  CHECK_HAS(v, "integrations[0].name", "missing_field");
  CHECK_HAS(v, "integrations[1].domain", "invalid_domain");
  CHECK_HAS(v, "integrations[1].secrets[0].name", "invalid_secret_name");
}

TEST_CASE("missing or invalid: no integration is registered, with the reason") {
  auto missing = platform::integrations_to_register(std::nullopt);
  CHECK(missing.integrations.empty());
  CHECK(missing.not_registered_reason == std::optional<std::string>("integration-setup.json is missing"));
  auto invalid = platform::integrations_to_register(std::string_view("{\"integrations\": [1, 2]}"));
  CHECK(invalid.integrations.empty());
  REQUIRE(invalid.not_registered_reason);
  CHECK(invalid.not_registered_reason->find("invalid (2 violations; first: integrations[0]:") != std::string::npos);
  auto broken = platform::integrations_to_register(std::string_view("not json"));
  CHECK(broken.integrations.empty());
  REQUIRE(broken.not_registered_reason);
  CHECK(broken.not_registered_reason->find("not valid JSON") != std::string::npos);
  std::string text = data("setup/valid.json");
  auto ok = platform::integrations_to_register(std::string_view(text));
  CHECK_FALSE(ok.not_registered_reason);
  CHECK(ok.integrations.size() == 2);
  auto r = platform::integration_setup_missing();
  CHECK_FALSE(r.setup);
  CHECK_ONLY(r.problems, "", "file_missing");
}

#undef CHECK_HAS
#undef CHECK_ONLY
#undef CHECK_VALID

}  // namespace integration_setup_test
