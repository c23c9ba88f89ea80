#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/agents_config.hpp"
#include "platform/integration_setup.hpp"

namespace agents_config_test {

using json = nlohmann::ordered_json;
using platform::validate_agents_config;
using platform::violations;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string data(const std::string& name) { return read_file(std::string(PLATFORM_TEST_DATA) + "/" + name); }

std::string listing(const violations& v) {
  std::string out;
  for (const auto& x : v) out += x.path + " [" + x.code + "] " + x.message + "\n";
  return out;
}

violations problems(const std::string& text, const platform::integration_setup* setup = nullptr) {
  auto r = validate_agents_config(text, setup);
  CHECK(r.config.has_value() == r.problems.empty());
  return r.problems;
}

violations problems(const json& doc, const platform::integration_setup* setup = nullptr) {
  return problems(doc.dump(), setup);
}

bool has(const violations& v, const std::string& path, const std::string& code) {
  return std::any_of(v.begin(), v.end(), [&](const auto& x) { return x.path == path && x.code == code; });
}

#define CHECK_HAS(v, path, code) CHECK_MESSAGE(has(v, path, code), "missing " << path << " [" << code << "] in:\n" << listing(v))
#define CHECK_ONLY(v, path, code)                          \
  do {                                                     \
    auto&& v_ = (v);                                       \
    CHECK_MESSAGE(v_.size() == 1, listing(v_));            \
    CHECK_HAS(v_, path, code);                             \
  } while (0)
#define CHECK_VALID(v) CHECK_MESSAGE((v).empty(), listing(v))

const platform::violation* find(const violations& v, const std::string& path, const std::string& code) {
  auto it = std::find_if(v.begin(), v.end(), [&](const auto& x) { return x.path == path && x.code == code; });
  return it == v.end() ? nullptr : &*it;
}

// A valid static-secret tool; tests break one thing at a time.
json static_tool() {
  return json::parse(R"({
    "type": "custom", "name": "crm_search", "description": "Searches deals.", "enabled": true,
    "integration": {"name": "Acme CRM", "domain": "acme.example"},
    "endpoint": {"method": "GET", "url": "https://api.acme.example/v1/deals",
                 "headers": {"X-Api-Key": "{{secrets.ACME_KEY}}"}, "queryParams": {"stage": "{{stage}}"}},
    "mockData": [{"deals": []}, {"deals": [1]}, {"deals": [2]}]
  })");
}

json public_tool() {
  json t = static_tool();
  t["name"] = "weather";
  t["integration"] = {{"name", "Weather"}, {"domain", "weather.example"}};
  t["endpoint"] = {{"method", "GET"}, {"url", "https://weather.example/now"}, {"queryParams", {{"city", "{{city}}"}}}};
  return t;
}

json oauth_tool() {
  json t = static_tool();
  t["name"] = "calendar";
  t["integration"] = json::parse(R"({"name": "Calendar", "domain": "calendar.example", "keySlug": "cal",
    "auth": {"type": "oauth2", "providerKey": "cal", "identity": "triggering_user",
             "authorizationUrl": "https://accounts.example/auth", "tokenUrl": "https://accounts.example/token",
             "scopes": ["events.read"]}})");
  t["endpoint"] = {{"method", "GET"}, {"url", "https://calendar.example/v1/events"}, {"queryParams", {{"q", "{{q}}"}}}};
  return t;
}

json agent_with(json tools, const std::string& id = "a1") {
  return {{"id", id}, {"name", "Agent"}, {"description", "Does things."}, {"systemPrompt", "Be useful."}, {"tools", tools}};
}

json doc_with_tool(const json& tool) { return {{"agents", json::array({agent_with(json::array({tool}))})}}; }

const std::string T = "agents[0].tools[0]";

}  // namespace

// ---- the realistic example ----

TEST_CASE("a full realistic agents.json is valid and parses into typed values") {
  auto r = validate_agents_config(data("agents/valid-full.json"));
  REQUIRE_MESSAGE(r.config.has_value(), listing(r.problems));
  CHECK(r.problems.empty());
  const auto& c = *r.config;
  REQUIRE(c.agents.size() == 3);
  REQUIRE(c.app_tools.size() == 1);
  const auto& deals = c.agents[0];
  CHECK(deals.id == "deal-summarizer");
  CHECK(deals.system_prompt.find("crm_search") != std::string::npos);
  CHECK(deals.data_collections == std::vector<std::string>{"summaries", "deal_notes"});
  const auto& search = deals.tools[0];
  CHECK(search.type == platform::tool_type::custom);
  CHECK(search.display_name == std::optional<std::string>("Search deals"));
  CHECK(search.recommended);
  REQUIRE(search.integration.has_value());
  CHECK(search.integration->key_slug == "default");
  CHECK(search.integration->setup_search_query == std::optional<std::string>("Acme CRM API key"));
  CHECK_FALSE(search.integration->oauth2.has_value());
  REQUIRE(search.endpoint.has_value());
  CHECK(search.endpoint->headers.at("X-Api-Key") == "{{secrets.ACME_API_KEY}}");
  CHECK(search.endpoint->query_params.at("limit") == "50");
  CHECK_FALSE(search.endpoint->body_json.has_value());
  CHECK(search.response_schema_json == std::optional<std::string>(R"({"type":"object","description":"A page of deals"})"));
  REQUIRE(search.mock_data_json.size() == 3);
  CHECK(search.mock_data_json[2] == R"({"deals":[]})");
  // The body keeps the author's key order: the executor sends it that way.
  CHECK(deals.tools[1].endpoint->body_json ==
        std::optional<std::string>(R"({"note":{"text":"{{text}}","source":"platform"},"tags":["{{tag}}","auto"]})"));
  CHECK(deals.tools[1].integration->key_slug == "default");  // missing keySlug is normalized
  const auto& cal = c.agents[1].tools[0];
  REQUIRE(cal.integration->oauth2.has_value());
  CHECK(cal.integration->oauth2->provider_key == "example-calendar");
  CHECK(cal.integration->oauth2->identity == "triggering_user");
  CHECK(cal.integration->oauth2->token_url == "https://accounts.example.com/o/oauth2/token");
  CHECK(cal.integration->oauth2->scopes == std::vector<std::string>{"calendar.events.readonly"});
  const auto& web = c.agents[2].tools;
  CHECK(web[0].type == platform::tool_type::builtin);
  CHECK(web[1].name == "WebFetch");
  CHECK_FALSE(web[1].enabled);
  CHECK(web[1].description.empty());
  CHECK(c.app_tools[0].name == "weather_now");
}

TEST_CASE("the valid example stays valid against its integration-setup.json") {
  auto setup = platform::validate_integration_setup(data("setup/valid.json"));
  REQUIRE_MESSAGE(setup.setup.has_value(), listing(setup.problems));
  CHECK_VALID(problems(data("agents/valid-full.json"), &*setup.setup));
}

TEST_CASE("find_agent and find_tool look in the agent's tools or in appTools") {
  auto r = validate_agents_config(data("agents/valid-full.json"));
  REQUIRE(r.config);
  const auto& c = *r.config;
  REQUIRE(c.find_agent("calendar-helper") != nullptr);
  CHECK(c.find_agent("calendar-helper")->name == "Calendar helper");
  CHECK(c.find_agent("nobody") == nullptr);
  CHECK(c.find_tool("weather_now") == &c.app_tools[0]);
  CHECK(c.find_tool("crm_search") == nullptr);  // not an app tool
  CHECK(c.find_tool("crm_search", "deal-summarizer") == &c.agents[0].tools[0]);
  CHECK(c.find_tool("weather_now", "deal-summarizer") == nullptr);
  CHECK(c.find_tool("crm_search", "nobody") == nullptr);
}

// ---- rule 1: exists, valid JSON, non-empty ----

TEST_CASE("rule 1: an empty, blank or {} document is empty_document") {
  for (std::string text : {"", "   ", "\n\t \r\n", "{}", "  { }  "}) {
    CAPTURE(text);
    CHECK_ONLY(problems(text), "", "empty_document");
  }
}

TEST_CASE("rule 1: invalid JSON names the parser's position") {
  auto v = problems(std::string(R"({"agents": [},)"));
  CHECK_ONLY(v, "", "invalid_json");
  CHECK(v[0].message.find("line 1") != std::string::npos);
  CHECK_ONLY(problems(std::string("{\"agents\": [], }")), "", "invalid_json");
  CHECK_ONLY(problems(std::string("\xff\xfe")), "", "invalid_json");
}

TEST_CASE("rule 1: the document must be an object") {
  for (std::string text : {"[]", "null", "\"agents\"", "42", "true"}) {
    CAPTURE(text);
    CHECK_ONLY(problems(text), "", "wrong_type");
  }
}

TEST_CASE("rule 1: a missing file has its own report") {
  auto r = platform::agents_config_missing();
  CHECK_FALSE(r.config);
  CHECK_ONLY(r.problems, "", "file_missing");
}

TEST_CASE("a document nested deeper than 100 levels is too_deep") {
  std::string deep = "{\"agents\": [], \"appTools\": " + std::string(120, '[') + std::string(120, ']') + "}";
  CHECK_ONLY(problems(deep), "", "too_deep");
}

TEST_CASE("a document nested 100,000 levels deep is too_deep at once, also when it is not valid JSON") {
  // Issue 14: a deep PATCH took 12-20 s and crashed; the scan answers before any parse.
  for (std::string deep : {"{\"agents\": " + std::string(100000, '[') + std::string(100000, ']') + "}",
                           "{\"agents\": " + std::string(100000, '{')}) {
    auto began = std::chrono::steady_clock::now();
    CHECK_ONLY(problems(deep), "", "too_deep");
    CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(1));
  }
}

// ---- agents and appTools ----

TEST_CASE("agents is required; it may be empty only when appTools holds a tool") {
  CHECK_ONLY(problems(json{{"appTools", json::array({public_tool()})}}), "agents", "missing_field");
  CHECK_ONLY(problems(json{{"agents", json::array()}}), "agents", "agents_empty");
  CHECK_ONLY(problems(json{{"agents", json::array()}, {"appTools", json::array()}}), "agents", "agents_empty");
  CHECK_VALID(problems(json{{"agents", json::array()}, {"appTools", json::array({public_tool()})}}));
  CHECK_ONLY(problems(json{{"agents", json::object()}}), "agents", "wrong_type");
  CHECK_ONLY(problems(json{{"agents", json::array({agent_with(json::array())})}, {"appTools", 3}}), "appTools",
             "wrong_type");
}

TEST_CASE("an agent without tools is valid; tools and dataCollections are optional") {
  json a = agent_with(json::array());
  CHECK_VALID(problems(json{{"agents", json::array({a})}}));
  a.erase("tools");
  CHECK_VALID(problems(json{{"agents", json::array({a})}}));
}

TEST_CASE("agent fields are required, non-empty strings") {
  json a = agent_with(json::array());
  a.erase("systemPrompt");
  a["name"] = "  ";
  a["description"] = 7;
  auto v = problems(json{{"agents", json::array({a})}});
  CHECK(v.size() == 3);
  CHECK_HAS(v, "agents[0].systemPrompt", "missing_field");
  CHECK_HAS(v, "agents[0].name", "empty_value");
  CHECK_HAS(v, "agents[0].description", "wrong_type");
  CHECK_ONLY(problems(json{{"agents", json::array({"an agent"})}}), "agents[0]", "wrong_type");
}

TEST_CASE("agent ids are unique and follow the id grammar") {
  json doc = {{"agents", json::array({agent_with(json::array(), "dup"), agent_with(json::array(), "ok-1"),
                                      agent_with(json::array(), "dup"), agent_with(json::array(), "has space")})}};
  auto v = problems(doc);
  CHECK(v.size() == 2);
  CHECK_HAS(v, "agents[2].id", "duplicate_agent_id");
  CHECK(find(v, "agents[2].id", "duplicate_agent_id")->message.find("agents[0]") != std::string::npos);
  CHECK_HAS(v, "agents[3].id", "invalid_agent_id");
  CHECK_ONLY(problems(json{{"agents", json::array({agent_with(json::array(), std::string(65, 'a'))})}}), "agents[0].id",
             "invalid_agent_id");
}

TEST_CASE("dataCollections entries are non-empty unique strings") {
  json a = agent_with(json::array());
  a["dataCollections"] = json::array({"notes", "", "notes", 3});
  auto v = problems(json{{"agents", json::array({a})}});
  CHECK(v.size() == 3);
  CHECK_HAS(v, "agents[0].dataCollections[1]", "empty_value");
  CHECK_HAS(v, "agents[0].dataCollections[2]", "duplicate_entry");
  CHECK_HAS(v, "agents[0].dataCollections[3]", "wrong_type");
  a["dataCollections"] = "notes";
  CHECK_ONLY(problems(json{{"agents", json::array({a})}}), "agents[0].dataCollections", "wrong_type");
}

// ---- rule 2: custom tools need integration.name/domain, endpoint.method/url ----

TEST_CASE("rule 2: custom tools need integration and endpoint with their required fields") {
  json t = static_tool();
  t["integration"].erase("name");
  t["integration"].erase("domain");
  t["endpoint"].erase("method");
  t["endpoint"].erase("url");
  auto v = problems(doc_with_tool(t));
  CHECK_MESSAGE(v.size() == 4, listing(v));
  CHECK_HAS(v, T + ".integration.name", "missing_field");
  CHECK_HAS(v, T + ".integration.domain", "missing_field");
  CHECK_HAS(v, T + ".endpoint.method", "missing_field");
  CHECK_HAS(v, T + ".endpoint.url", "missing_field");

  json bare = static_tool();
  bare.erase("integration");
  bare.erase("endpoint");
  auto w = problems(doc_with_tool(bare));
  CHECK(w.size() == 2);
  CHECK_HAS(w, T + ".integration", "missing_field");
  CHECK_HAS(w, T + ".endpoint", "missing_field");

  json empty = static_tool();
  empty["integration"]["domain"] = "";
  empty["endpoint"]["url"] = " ";
  auto e = problems(doc_with_tool(empty));
  CHECK(e.size() == 2);
  CHECK_HAS(e, T + ".integration.domain", "empty_value");
  CHECK_HAS(e, T + ".endpoint.url", "empty_value");
}

TEST_CASE("tool type, name and description") {
  json t = static_tool();
  t.erase("type");
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".type", "missing_field");
  t["type"] = "http";
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".type", "invalid_tool_type");
  t = static_tool();
  t.erase("description");
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".description", "missing_field");
  t = static_tool();
  t["name"] = 5;
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".name", "wrong_type");
}

TEST_CASE("a tool with an unknown type reports no custom-only missing fields") {
  json t = {{"type", "Custom"}, {"name", "x"}};
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".type", "invalid_tool_type");
}

TEST_CASE("custom tool names follow the tool name grammar") {
  for (std::string bad : std::vector<std::string>{"crm search", "1tool", "crm.search", "mcp__app_tools__crm", std::string(49, 'x')}) {
    CAPTURE(bad);
    json t = static_tool();
    t["name"] = bad;
    CHECK_ONLY(problems(doc_with_tool(t)), T + ".name", "invalid_tool_name");
  }
  json t = static_tool();
  t["name"] = std::string(48, 'x');
  CHECK_VALID(problems(doc_with_tool(t)));
  t["name"] = "_crm-search_2";
  CHECK_VALID(problems(doc_with_tool(t)));
}

TEST_CASE("report_tool_call_failed is reserved, in agents and in appTools, in any case") {
  json t = static_tool();
  t["name"] = "report_tool_call_failed";
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".name", "reserved_tool_name");
  json app = public_tool();
  app["name"] = "Report_Tool_Call_Failed";
  CHECK_ONLY(problems(json{{"agents", json::array()}, {"appTools", json::array({app})}}), "appTools[0].name",
             "reserved_tool_name");
  json b = {{"type", "builtin"}, {"name", "report_tool_call_failed"}};
  CHECK_ONLY(problems(doc_with_tool(b)), T + ".name", "reserved_tool_name");
}

TEST_CASE("tool names are unique within an agent and within appTools, not across them") {
  json a = agent_with(json::array({static_tool(), public_tool(), static_tool()}));
  json app = json::array({public_tool(), public_tool()});
  auto v = problems(json{{"agents", json::array({a})}, {"appTools", app}});
  CHECK_MESSAGE(v.size() == 2, listing(v));
  CHECK_HAS(v, "agents[0].tools[2].name", "duplicate_tool_name");
  CHECK_HAS(v, "appTools[1].name", "duplicate_tool_name");
  // The same name in an agent and in appTools, or in two agents, is fine.
  json b = agent_with(json::array({static_tool()}), "a2");
  CHECK_VALID(problems(json{{"agents", json::array({agent_with(json::array({public_tool()})), b})},
                            {"appTools", json::array({public_tool()})}}));
}

// ---- builtin tools ----

TEST_CASE("builtin tools are WebSearch and WebFetch only") {
  json ok = {{"type", "builtin"}, {"name", "WebSearch"}};
  CHECK_VALID(problems(doc_with_tool(ok)));
  json lower = {{"type", "builtin"}, {"name", "websearch"}};
  auto v = problems(doc_with_tool(lower));
  CHECK_ONLY(v, T + ".name", "unknown_builtin");
  CHECK(v[0].message.find("\"WebSearch\" (exact case)") != std::string::npos);
  json bash = {{"type", "builtin"}, {"name", "Bash"}};
  CHECK_ONLY(problems(doc_with_tool(bash)), T + ".name", "unknown_builtin");
}

TEST_CASE("builtin tools carry no integration, endpoint, responseSchema or mockData") {
  json b = static_tool();
  b["type"] = "builtin";
  b["name"] = "WebFetch";
  b["responseSchema"] = json::object();
  auto v = problems(doc_with_tool(b));
  CHECK_MESSAGE(v.size() == 4, listing(v));
  for (std::string f : {"integration", "endpoint", "responseSchema", "mockData"}) {
    CHECK_HAS(v, T + "." + f, "builtin_field_not_allowed");
  }
}

TEST_CASE("builtin tools cannot be app tools") {
  json b = {{"type", "builtin"}, {"name", "WebSearch"}};
  CHECK_ONLY(problems(json{{"agents", json::array()}, {"appTools", json::array({b})}}), "appTools[0].type",
             "builtin_app_tool");
}

TEST_CASE("design rule: an agent holding custom tools must not also hold WebSearch or WebFetch") {
  json search = {{"type", "builtin"}, {"name", "WebSearch"}, {"enabled", false}};
  json fetch = {{"type", "builtin"}, {"name", "WebFetch"}};
  auto v = problems(json{{"agents", json::array({agent_with(json::array({search, static_tool(), fetch}))})}});
  CHECK_MESSAGE(v.size() == 2, listing(v));
  CHECK_HAS(v, "agents[0].tools[0]", "builtin_beside_custom_tools");
  CHECK_HAS(v, "agents[0].tools[2]", "builtin_beside_custom_tools");
  CHECK(v[0].message.find("\"crm_search\"") != std::string::npos);
  // Separate agents are the fix.
  CHECK_VALID(problems(json{{"agents", json::array({agent_with(json::array({search, fetch}), "web"),
                                                     agent_with(json::array({static_tool()}), "crm")})}}));
}

// ---- mockData ----

TEST_CASE("custom tools need at least 3 mockData entries") {
  json t = static_tool();
  t["mockData"] = json::array({1, 2});
  auto v = problems(doc_with_tool(t));
  CHECK_ONLY(v, T + ".mockData", "too_few_mock_data");
  CHECK(v[0].message.find("has 2 entries") != std::string::npos);
  t["mockData"] = json::array();
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".mockData", "too_few_mock_data");
  t.erase("mockData");
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".mockData", "missing_field");
  t["mockData"] = json::object();
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".mockData", "wrong_type");
  t["mockData"] = json::array({nullptr, "text", json::array()});
  CHECK_VALID(problems(doc_with_tool(t)));
}

// ---- unknown fields and wrong types ----

TEST_CASE("unknown fields are rejected at every level, listing the allowed ones") {
  json t = oauth_tool();
  t["Enabled"] = true;
  t["integration"]["slug"] = "x";
  t["integration"]["auth"]["clientSecret"] = "x";
  t["endpoint"]["timeout"] = 5;
  json a = agent_with(json::array({t}));
  a["model"] = "m";
  json doc = {{"agents", json::array({a})}, {"version", 1}};
  auto v = problems(doc);
  CHECK_MESSAGE(v.size() == 6, listing(v));
  CHECK_HAS(v, "version", "unknown_field");
  CHECK_HAS(v, "agents[0].model", "unknown_field");
  CHECK_HAS(v, T + ".Enabled", "unknown_field");
  CHECK_HAS(v, T + ".integration.slug", "unknown_field");
  CHECK_HAS(v, T + ".integration.auth.clientSecret", "unknown_field");
  CHECK_HAS(v, T + ".endpoint.timeout", "unknown_field");
  const auto* e = find(v, T + ".Enabled", "unknown_field");
  CHECK(e->message.find("allowed fields: type, name, displayName, description, enabled") != std::string::npos);
  CHECK(e->message.find("Rename it to \"enabled\"") != std::string::npos);
  CHECK(find(v, "agents[0].model", "unknown_field")->message.find("Remove it") != std::string::npos);
}

TEST_CASE("an unknown field up to two edits from an allowed one gets a rename hint, three edits none") {
  auto hint_for = [](const std::string& field) {
    json t = static_tool();
    t[field] = true;
    auto v = problems(doc_with_tool(t));
    const auto* e = find(v, T + "." + field, "unknown_field");
    REQUIRE(e != nullptr);
    return e->message;
  };
  CHECK(hint_for("descriptio").find("Rename it to \"description\"") != std::string::npos);
  CHECK(hint_for("enabld").find("Rename it to \"enabled\"") != std::string::npos);
  CHECK(hint_for("ENABLED_X").find("Rename it to \"enabled\"") != std::string::npos);
  CHECK(hint_for("enabledXYZ").find("Remove it") != std::string::npos);
  CHECK(hint_for("x").find("Remove it") != std::string::npos);
}

TEST_CASE("wrong JSON types are reported with the expected type") {
  json t = static_tool();
  t["enabled"] = "true";
  t["recommended"] = 1;
  t["displayName"] = json::array();
  t["responseSchema"] = "object";
  t["endpoint"]["headers"] = json::array({"X-Api-Key: x"});
  t["endpoint"]["queryParams"] = {{"limit", 10}, {"stage", "{{stage}}"}};
  auto v = problems(doc_with_tool(t));
  CHECK_MESSAGE(v.size() == 6, listing(v));
  CHECK_HAS(v, T + ".enabled", "wrong_type");
  CHECK(find(v, T + ".enabled", "wrong_type")->message.find("true or false") != std::string::npos);
  CHECK_HAS(v, T + ".recommended", "wrong_type");
  CHECK_HAS(v, T + ".displayName", "wrong_type");
  CHECK_HAS(v, T + ".responseSchema", "wrong_type");
  CHECK_HAS(v, T + ".endpoint.headers", "wrong_type");
  CHECK_HAS(v, T + ".endpoint.queryParams.limit", "wrong_type");
  json u = static_tool();
  u["endpoint"]["headers"] = {{"X-Api-Key", {{"value", "x"}}}};
  CHECK_ONLY(problems(doc_with_tool(u)), T + ".endpoint.headers[\"X-Api-Key\"]", "wrong_type");
  json w = static_tool();
  w["integration"] = "acme.example";
  CHECK_ONLY(problems(doc_with_tool(w)), T + ".integration", "wrong_type");
  json tools_obj = agent_with(json::object());
  CHECK_ONLY(problems(json{{"agents", json::array({tools_obj})}}), "agents[0].tools", "wrong_type");
}

// ---- endpoint.method ----

TEST_CASE("endpoint.method is GET, POST, PUT, PATCH or DELETE, in upper case") {
  for (std::string m : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
    json t = public_tool();
    t["endpoint"]["method"] = m;
    CHECK_VALID(problems(doc_with_tool(t)));
  }
  json t = public_tool();
  t["endpoint"]["method"] = "get";
  auto v = problems(doc_with_tool(t));
  CHECK_ONLY(v, T + ".endpoint.method", "invalid_method");
  CHECK(v[0].message.find("\"GET\"") != std::string::npos);
  for (std::string m : {"HEAD", "OPTIONS", "TRACE", "FETCH"}) {
    t["endpoint"]["method"] = m;
    CHECK_ONLY(problems(doc_with_tool(t)), T + ".endpoint.method", "invalid_method");
  }
}

// ---- endpoint.url and integration.domain ----

TEST_CASE("endpoint.url must be an absolute http(s) URL") {
  for (std::string url : {"/v1/deals", "api.acme.example/v1", "ftp://api.acme.example/x", "https:///x",
                          "https://user:pw@api.acme.example/x", "https://api.acme.example:0/x",
                          "https://api.acme.example:99999/x", "https://api.acme.example/x#frag",
                          "https://api.acme.example/a b", "https://[::1]/x", "https://api_acme.example/x"}) {
    CAPTURE(url);
    json t = static_tool();
    t["endpoint"]["url"] = url;
    CHECK_ONLY(problems(doc_with_tool(t)), T + ".endpoint.url", "invalid_url");
  }
  for (std::string url : {"https://api.acme.example", "HTTPS://API.acme.example/x", "http://acme.example:8443/v1?x=1",
                          "https://api.acme.example/v1/{{ id }}/items?fields={{fields}}"}) {
    CAPTURE(url);
    json t = static_tool();
    t["endpoint"]["url"] = url;
    CHECK_VALID(problems(doc_with_tool(t)));
  }
}

TEST_CASE("placeholders are not allowed in the url's scheme or host") {
  for (std::string url : {"{{base_url}}/v1/deals", "https://{{region}}.acme.example/v1", "https://api.acme.example{{path}}",
                          "https://{{secrets.HOST}}/v1", "https://api.acme.example:{{port}}/v1"}) {
    CAPTURE(url);
    json t = static_tool();
    t["endpoint"]["url"] = url;
    CHECK_ONLY(problems(doc_with_tool(t)), T + ".endpoint.url", "placeholder_in_url_host");
  }
}

TEST_CASE("the url's host is integration.domain or a subdomain of it") {
  auto with = [](const std::string& domain, const std::string& url) {
    json t = static_tool();
    t["integration"]["domain"] = domain;
    t["endpoint"]["url"] = url;
    return problems(doc_with_tool(t));
  };
  CHECK_VALID(with("acme.example", "https://acme.example/x"));
  CHECK_VALID(with("acme.example", "https://eu.api.acme.example/x"));
  CHECK_VALID(with("127.0.0.1", "http://127.0.0.1:8080/mock"));
  CHECK_VALID(with("localhost", "http://localhost:3000/x"));
  CHECK_ONLY(with("acme.example", "https://evilacme.example/x"), T + ".endpoint.url", "url_host_mismatch");
  CHECK_ONLY(with("acme.example", "https://acme.example.evil.test/x"), T + ".endpoint.url", "url_host_mismatch");
  CHECK_ONLY(with("api.acme.example", "https://acme.example/x"), T + ".endpoint.url", "url_host_mismatch");
  CHECK_ONLY(with("0.0.1", "http://10.0.0.1/x"), T + ".integration.domain", "invalid_domain");
  CHECK_ONLY(with("10.0.0.1", "http://110.0.0.1/x"), T + ".endpoint.url", "url_host_mismatch");
  auto v = with("acme.example", "https://other.example/x");
  CHECK(v[0].message.find("https://acme.example/") != std::string::npos);
}

TEST_CASE("integration.domain is a bare lower-case host name") {
  for (std::string d : {"https://acme.example", "acme.example/api", "acme.example:443", "Acme.example", "*.acme.example",
                        "acme..example", "-acme.example", "acme.example.", "1.2.3.4.5", "256.1.1.1"}) {
    CAPTURE(d);
    json t = static_tool();
    t["integration"]["domain"] = d;
    auto v = problems(doc_with_tool(t));
    CHECK_HAS(v, T + ".integration.domain", "invalid_domain");
    CHECK_MESSAGE(v.size() == 1, listing(v));  // no url_host_mismatch on top of it
  }
}

TEST_CASE("integration.keySlug: missing is default, present must be a slug") {
  json t = static_tool();
  auto r = validate_agents_config(doc_with_tool(t).dump());
  REQUIRE(r.config);
  CHECK(r.config->agents[0].tools[0].integration->key_slug == "default");
  t["integration"]["keySlug"] = "reporting-key_2";
  r = validate_agents_config(doc_with_tool(t).dump());
  REQUIRE(r.config);
  CHECK(r.config->agents[0].tools[0].integration->key_slug == "reporting-key_2");
  for (std::string s : std::vector<std::string>{"Reporting", "my key", "-x", std::string(65, 'k')}) {
    t["integration"]["keySlug"] = s;
    CHECK_ONLY(problems(doc_with_tool(t)), T + ".integration.keySlug", "invalid_key_slug");
  }
  t["integration"]["keySlug"] = "";
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".integration.keySlug", "empty_value");
}

// ---- headers, queryParams, body ----

TEST_CASE("header names are HTTP tokens, not executor-owned, and unique ignoring case") {
  json t = static_tool();
  t["endpoint"]["headers"] = {{"X-Api-Key", "{{secrets.ACME_KEY}}"}, {"x-api-key", "{{secrets.ACME_KEY}}"},
                              {"Host", "api.acme.example"}, {"Content-Length", "3"}, {"X Trace", "1"},
                              {"X-{{h}}", "1"}, {"X-Note", "a\r\nInjected: yes"}};
  auto v = problems(doc_with_tool(t));
  CHECK_MESSAGE(v.size() == 6, listing(v));
  const std::string h = T + ".endpoint.headers";
  CHECK_HAS(v, h + "[\"x-api-key\"]", "duplicate_header");
  CHECK_HAS(v, h + ".Host", "forbidden_header");
  CHECK_HAS(v, h + "[\"Content-Length\"]", "forbidden_header");
  CHECK_HAS(v, h + "[\"X Trace\"]", "invalid_header_name");
  CHECK_HAS(v, h + "[\"X-{{h}}\"]", "invalid_header_name");
  CHECK_HAS(v, h + "[\"X-Note\"]", "invalid_header_value");
}

TEST_CASE("query parameters need names; values may be literals or placeholders") {
  json t = public_tool();
  t["endpoint"]["queryParams"] = {{"", "x"}, {"units", "metric"}, {"q", "{{city}}"}, {"empty", ""}};
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".endpoint.queryParams[\"\"]", "empty_value");
}

TEST_CASE("a GET endpoint carries no body; a null body is no body") {
  json t = static_tool();
  t["endpoint"]["body"] = {{"q", "{{q}}"}};
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".endpoint.body", "body_not_allowed");
  t["endpoint"]["body"] = nullptr;
  auto r = validate_agents_config(doc_with_tool(t).dump());
  REQUIRE(r.config);
  CHECK_FALSE(r.config->agents[0].tools[0].endpoint->body_json.has_value());
  t["endpoint"]["method"] = "POST";
  t["endpoint"]["body"] = json::array({"{{q}}", 1, true});
  CHECK_VALID(problems(doc_with_tool(t)));
}

TEST_CASE("an endpoint body nested deeper than 64 levels is too_deep") {
  json t = static_tool();
  t["endpoint"]["method"] = "POST";
  json body = "{{q}}";
  for (int i = 0; i < 70; ++i) body = json::array({body});
  t["endpoint"]["body"] = body;
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".endpoint.body", "too_deep");
}

// ---- placeholders ----

TEST_CASE("placeholder syntax errors are reported where they are, in every endpoint string") {
  json t = static_tool();
  t["endpoint"]["method"] = "POST";
  t["endpoint"]["url"] = "https://api.acme.example/v1/{{id";
  t["endpoint"]["headers"]["X-Trace"] = "{{ }}";
  t["endpoint"]["queryParams"]["q"] = "{{1abc}}";
  t["endpoint"]["body"] = {{"items", json::array({{{"name", "{{secrets.a.b}}"}}})}, {"ok", "{{fine}}"}};
  auto v = problems(doc_with_tool(t));
  CHECK_MESSAGE(v.size() == 4, listing(v));
  CHECK_HAS(v, T + ".endpoint.url", "placeholder_unclosed");
  CHECK_HAS(v, T + ".endpoint.headers[\"X-Trace\"]", "placeholder_empty");
  CHECK_HAS(v, T + ".endpoint.queryParams.q", "placeholder_invalid_path");
  CHECK_HAS(v, T + ".endpoint.body.items[0].name", "placeholder_invalid_path");
  CHECK(find(v, T + ".endpoint.url", "placeholder_unclosed")->message.find("{{secrets.NAME}}") != std::string::npos);
}

TEST_CASE("body object keys are literal text, not placeholders") {
  json t = static_tool();
  t["endpoint"]["method"] = "POST";
  t["endpoint"]["body"] = {{"{{not-a-placeholder", "{{q}}"}};
  CHECK_VALID(problems(doc_with_tool(t)));
}

// ---- rules 3 and 5 without a setup: static vs public ----

TEST_CASE("rules 3 and 5 without a setup: secrets make a tool static, none make it public") {
  CHECK_VALID(problems(doc_with_tool(static_tool())));
  CHECK_VALID(problems(doc_with_tool(public_tool())));
  json q = public_tool();
  q["endpoint"]["queryParams"]["appid"] = "{{secrets.WEATHER_KEY}}";
  CHECK_VALID(problems(doc_with_tool(q)));
}

TEST_CASE("a credential written literally into a header or query parameter is a violation") {
  json t = static_tool();
  t["endpoint"]["headers"] = {{"X-Api-Key", "sk_live_123"}, {"Accept", "application/json"}};
  auto v = problems(doc_with_tool(t));
  CHECK_ONLY(v, T + ".endpoint.headers[\"X-Api-Key\"]", "hardcoded_credential");
  CHECK(v[0].message.find("{{secrets.NAME}}") != std::string::npos);
  CHECK(v[0].message.find("sk_live_123") == std::string::npos);  // never echo the key
  json q = public_tool();
  q["endpoint"]["queryParams"]["api_key"] = "abc";
  CHECK_ONLY(problems(doc_with_tool(q)), T + ".endpoint.queryParams.api_key", "hardcoded_credential");
  json a = public_tool();
  a["endpoint"]["headers"] = {{"authorization", "Bearer abc"}};
  CHECK_ONLY(problems(doc_with_tool(a)), T + ".endpoint.headers.authorization", "hardcoded_credential");
  // Input placeholders (e.g. pagination tokens) are not literal credentials.
  json p = public_tool();
  p["endpoint"]["queryParams"]["token"] = "{{pageToken}}";
  CHECK_VALID(problems(doc_with_tool(p)));
}

// ---- rule 4: OAuth tools ----

TEST_CASE("rule 4: a complete OAuth tool is valid") { CHECK_VALID(problems(doc_with_tool(oauth_tool()))); }

TEST_CASE("rule 4: OAuth tools need the full oauth2 metadata") {
  json t = oauth_tool();
  auto& auth = t["integration"]["auth"];
  auth.erase("providerKey");
  auth.erase("authorizationUrl");
  auth.erase("tokenUrl");
  auth.erase("scopes");
  auth.erase("identity");
  auto v = problems(doc_with_tool(t));
  CHECK_MESSAGE(v.size() == 5, listing(v));
  const std::string a = T + ".integration.auth.";
  for (std::string f : {"providerKey", "authorizationUrl", "tokenUrl", "scopes", "identity"}) {
    CHECK_HAS(v, a + f, "missing_field");
  }
}

TEST_CASE("rule 4: identity, scopes, urls and type of the oauth2 metadata") {
  const std::string a = T + ".integration.auth.";
  json t = oauth_tool();
  t["integration"]["auth"]["identity"] = "app_owner";
  CHECK_ONLY(problems(doc_with_tool(t)), a + "identity", "invalid_oauth_identity");
  t = oauth_tool();
  t["integration"]["auth"]["scopes"] = json::array();
  CHECK_ONLY(problems(doc_with_tool(t)), a + "scopes", "oauth_scopes_empty");
  t["integration"]["auth"]["scopes"] = json::array({"read", "read"});
  CHECK_ONLY(problems(doc_with_tool(t)), a + "scopes[1]", "duplicate_entry");
  t["integration"]["auth"]["scopes"] = "read";
  CHECK_ONLY(problems(doc_with_tool(t)), a + "scopes", "wrong_type");
  t = oauth_tool();
  t["integration"]["auth"]["tokenUrl"] = "accounts.example/token";
  t["integration"]["auth"]["authorizationUrl"] = "https://accounts.example/{{tenant}}/auth";
  auto v = problems(doc_with_tool(t));
  CHECK(v.size() == 2);
  CHECK_HAS(v, a + "tokenUrl", "invalid_url");
  CHECK_HAS(v, a + "authorizationUrl", "invalid_url");
  t = oauth_tool();
  t["integration"]["auth"] = {{"type", "api_key"}};
  CHECK_ONLY(problems(doc_with_tool(t)), a + "type", "unsupported_auth_type");
  t["integration"]["auth"] = json::object();
  CHECK_ONLY(problems(doc_with_tool(t)), a + "type", "missing_field");
  t["integration"]["auth"] = "oauth2";
  CHECK_ONLY(problems(doc_with_tool(t)), T + ".integration.auth", "wrong_type");
}

TEST_CASE("rule 4: OAuth tools must not use token or secrets placeholders anywhere") {
  for (std::string ph : {"{{oauth.access_token}}", "{{access_token}}", "{{token}}", "{{ token }}", "{{secrets.KEY}}",
                         "{{Access_Token}}", "{{oauth.refresh_token}}"}) {
    CAPTURE(ph);
    json q = oauth_tool();
    q["endpoint"]["queryParams"]["t"] = ph;
    CHECK_ONLY(problems(doc_with_tool(q)), T + ".endpoint.queryParams.t", "oauth_forbidden_placeholder");
    json b = oauth_tool();
    b["endpoint"]["method"] = "POST";
    b["endpoint"]["body"] = {{"auth", {{"value", "x " + ph}}}};
    CHECK_ONLY(problems(doc_with_tool(b)), T + ".endpoint.body.auth.value", "oauth_forbidden_placeholder");
  }
  json u = oauth_tool();
  u["endpoint"]["url"] = "https://calendar.example/v1/{{token}}/events";
  CHECK_ONLY(problems(doc_with_tool(u)), T + ".endpoint.url", "oauth_forbidden_placeholder");
  // Other input placeholders are fine; so is a secrets placeholder in a static tool.
  json ok = oauth_tool();
  ok["endpoint"]["queryParams"]["pageToken"] = "{{pageToken}}";
  CHECK_VALID(problems(doc_with_tool(ok)));
}

TEST_CASE("rule 4: OAuth tools must not set an Authorization header, in any letter case") {
  for (std::string name : {"Authorization", "authorization", "AUTHORIZATION", "aUtHoRiZaTiOn"}) {
    CAPTURE(name);
    json t = oauth_tool();
    t["endpoint"]["headers"] = {{name, "Bearer abc"}};
    CHECK_ONLY(problems(doc_with_tool(t)), T + ".endpoint.headers." + name, "oauth_authorization_header");
  }
  json t = oauth_tool();
  t["endpoint"]["headers"] = {{"Authorization", "Bearer {{access_token}}"}};
  auto v = problems(doc_with_tool(t));
  CHECK(v.size() == 2);
  CHECK_HAS(v, T + ".endpoint.headers.Authorization", "oauth_authorization_header");
  CHECK_HAS(v, T + ".endpoint.headers.Authorization", "oauth_forbidden_placeholder");
}

// ---- cross rules with integration-setup.json ----

namespace {

platform::integration_setup setup_for(const std::string& text) {
  auto r = platform::validate_integration_setup(text);
  REQUIRE_MESSAGE(r.setup.has_value(), listing(r.problems));
  return *r.setup;
}

const std::string acme_setup = R"({"integrations": [
  {"name": "Acme CRM", "domain": "acme.example", "keySlug": "default",
   "secrets": [{"name": "ACME_KEY"}, {"name": "ACME_ACCOUNT", "required": false}]},
  {"name": "Weather", "domain": "weather.example", "keySlug": "default"}]})";

}  // namespace

TEST_CASE("with a setup, a tool whose integration declares secrets must use one") {
  auto setup = setup_for(acme_setup);
  CHECK_VALID(problems(doc_with_tool(static_tool()), &setup));
  json t = static_tool();
  t["endpoint"]["headers"] = json::object();
  auto v = problems(doc_with_tool(t), &setup);
  CHECK_ONLY(v, T + ".endpoint", "static_tool_without_secret");
  CHECK(v[0].message.find("{{secrets.ACME_KEY}}") != std::string::npos);
  // Without the setup the same tool counts as public.
  CHECK_VALID(problems(doc_with_tool(t)));
}

TEST_CASE("with a setup, every secret used must be declared by the matching integration") {
  auto setup = setup_for(acme_setup);
  json t = static_tool();
  t["endpoint"]["queryParams"]["account"] = "{{secrets.ACME_ACCOUNT}}";
  CHECK_VALID(problems(doc_with_tool(t), &setup));
  t["endpoint"]["headers"]["X-Api-Key"] = "{{secrets.ACME_TOKEN}}";
  auto v = problems(doc_with_tool(t), &setup);
  CHECK_ONLY(v, T + ".endpoint.headers[\"X-Api-Key\"]", "undeclared_secret");
  CHECK(v[0].message.find("ACME_KEY, ACME_ACCOUNT") != std::string::npos);
  // An integration that declares no secrets: any secret is undeclared, none is a public tool.
  json w = public_tool();
  CHECK_VALID(problems(doc_with_tool(w), &setup));
  w["endpoint"]["queryParams"]["appid"] = "{{secrets.WEATHER_KEY}}";
  CHECK_ONLY(problems(doc_with_tool(w), &setup), T + ".endpoint.queryParams.appid", "undeclared_secret");
}

TEST_CASE("with a setup, tools whose (domain, keySlug) has no entry are not cross-checked") {
  auto setup = setup_for(acme_setup);
  json t = static_tool();
  t["integration"]["keySlug"] = "reporting";  // another grant of the same domain
  t["endpoint"]["headers"] = {{"X-Api-Key", "{{secrets.OTHER}}"}};
  CHECK_VALID(problems(doc_with_tool(t), &setup));
  t["endpoint"]["headers"] = json::object();
  CHECK_VALID(problems(doc_with_tool(t), &setup));
}

TEST_CASE("with a setup, OAuth tools are not static tools") {
  auto setup = setup_for(R"({"integrations": [{"name": "Calendar", "domain": "calendar.example", "keySlug": "cal",
                             "secrets": [{"name": "CLIENT_SECRET"}]}]})");
  CHECK_VALID(problems(doc_with_tool(oauth_tool()), &setup));
}

// ---- reporting ----

TEST_CASE("every violation is reported at once, grouped by agent and tool in order") {
  json bad_static = static_tool();
  bad_static["endpoint"]["url"] = "https://{{host}}/x";
  bad_static["mockData"] = json::array({1});
  json bad_oauth = oauth_tool();
  bad_oauth["endpoint"]["headers"] = {{"Authorization", "x"}};
  json a0 = agent_with(json::array({bad_static, bad_oauth}), "dup");
  a0["systemPrompt"] = "";
  json a1 = agent_with(json::array({{{"type", "builtin"}, {"name", "Browser"}}}), "dup");
  json app = public_tool();
  app["endpoint"]["method"] = "FETCH";
  json doc = {{"appTools", json::array({app})}, {"agents", json::array({a0, a1})}, {"extra", true}};
  auto v = problems(doc);
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& x : v) got.emplace_back(x.path, x.code);
  std::vector<std::pair<std::string, std::string>> want{
      {"extra", "unknown_field"},
      {"agents[0].systemPrompt", "empty_value"},
      {"agents[0].tools[0].mockData", "too_few_mock_data"},
      {"agents[0].tools[0].endpoint.url", "placeholder_in_url_host"},
      {"agents[0].tools[1].endpoint.headers.Authorization", "oauth_authorization_header"},
      {"agents[1].id", "duplicate_agent_id"},
      {"agents[1].tools[0].name", "unknown_builtin"},
      {"appTools[0].endpoint.method", "invalid_method"},
  };
  CHECK_MESSAGE(got == want, listing(v));
}

TEST_CASE("odd keys get bracket paths and the report is valid JSON") {
  json t = static_tool();
  t["endpoint"]["headers"] = {{"X \"quoted\"", "1"}};
  json a = agent_with(json::array({t}));
  a["caf\xc3\xa9"] = 1;
  auto r = validate_agents_config(json{{"agents", json::array({a})}}.dump());
  CHECK_HAS(r.problems, "agents[0][\"caf\xc3\xa9\"]", "unknown_field");
  CHECK_HAS(r.problems, T + ".endpoint.headers[\"X \\\"quoted\\\"\"]", "invalid_header_name");
  auto report = json::parse(platform::violations_to_json(r.problems));
  CHECK(report["ok"] == false);
  CHECK(report["violations"].size() == r.problems.size());
}

TEST_CASE("validation is deterministic and whitespace or key order do not matter") {
  std::string text = data("agents/valid-full.json");
  auto a = validate_agents_config(text);
  json reordered = json::parse(text);
  std::string compact = reordered.dump();
  auto b = validate_agents_config(compact);
  REQUIRE(a.config);
  REQUIRE(b.config);
  CHECK(a.config->agents[0].tools[1].endpoint->body_json == b.config->agents[0].tools[1].endpoint->body_json);
  json broken = json::parse(text);
  broken["agents"][0]["tools"][0]["endpoint"]["method"] = "get";
  broken["agents"][1]["id"] = "deal-summarizer";
  auto x = validate_agents_config(broken.dump());
  auto y = validate_agents_config(broken.dump(2));
  CHECK(platform::violations_to_json(x.problems) == platform::violations_to_json(y.problems));
  CHECK(x.problems.size() == 2);
}

// ---- the code list ----

TEST_CASE("every violation code is unique, snake_case and documented") {
  std::string agents_doc = read_file(std::string(PLATFORM_TEST_DATA) + "/../../docs/agents-json.md");
  std::string setup_doc = read_file(std::string(PLATFORM_TEST_DATA) + "/../../docs/integration-setup.md");
  std::set<std::string_view> seen;
  for (const auto& c : platform::config_violation_codes()) {
    CAPTURE(c.code);
    CHECK(seen.insert(c.code).second);
    CHECK(std::all_of(c.code.begin(), c.code.end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '_'; }));
    CHECK(!c.meaning.empty());
    std::string needle = "`" + std::string(c.code) + "`";
    if (c.file != "integration-setup.json") CHECK(agents_doc.find(needle) != std::string::npos);
    if (c.file != "agents.json") CHECK(setup_doc.find(needle) != std::string::npos);
  }
  CHECK(seen.size() > 40);
}


// ---- triggers (routines, issue 37) ----

json triggered_doc(const json& triggers) {
  json a = agent_with(json::array());
  a["triggers"] = triggers;
  return {{"agents", json::array({a})}};
}

TEST_CASE("triggers: a schedule and a webhook parse; the cron's fields are joined by single spaces") {
  json doc = triggered_doc(json::parse(R"({
    "schedule": {"cron": " 0  8 * * 1-5", "timezone": "Europe/Paris", "prompt": "Summarize the open deals."},
    "webhook": {"prompt": "A deal changed:"}})"));
  auto r = validate_agents_config(doc.dump(), nullptr);
  REQUIRE_MESSAGE(r.config, listing(r.problems));
  const auto& t = r.config->agents[0].triggers;
  REQUIRE(t.schedule);
  CHECK(t.schedule->cron == "0 8 * * 1-5");
  CHECK(t.schedule->timezone == "Europe/Paris");
  CHECK(t.schedule->prompt == "Summarize the open deals.");
  REQUIRE(t.webhook);
  CHECK(t.webhook->prompt == "A deal changed:");
  json none = triggered_doc(json::object());
  auto n = validate_agents_config(none.dump(), nullptr);
  REQUIRE(n.config);
  CHECK_FALSE(n.config->agents[0].triggers.any());
}

TEST_CASE("triggers: a bad cron, a zone that is not a name, a missing prompt and an unknown field are each reported") {
  auto with = [](const std::string& triggers) { return triggered_doc(json::parse(triggers)); };
  CHECK_ONLY(problems(with(R"({"schedule": {"cron": "0 25 * * *", "timezone": "UTC", "prompt": "p"}})")), "agents[0].triggers.schedule.cron", "invalid_schedule");
  CHECK_ONLY(problems(with(R"({"schedule": {"cron": "0 8 * *", "timezone": "UTC", "prompt": "p"}})")), "agents[0].triggers.schedule.cron", "invalid_schedule");
  CHECK_ONLY(problems(with(R"({"schedule": {"cron": "0 8 * * *", "timezone": "Paris time", "prompt": "p"}})")), "agents[0].triggers.schedule.timezone", "invalid_timezone");
  CHECK_ONLY(problems(with(R"({"schedule": {"cron": "0 8 * * *", "timezone": "../etc", "prompt": "p"}})")), "agents[0].triggers.schedule.timezone", "invalid_timezone");
  CHECK_ONLY(problems(with(R"({"schedule": {"cron": "0 8 * * *", "timezone": "UTC"}})")), "agents[0].triggers.schedule.prompt", "missing_field");
  CHECK_ONLY(problems(with(R"({"schedule": {"cron": "0 8 * * *", "timezone": "UTC", "prompt": "p"}, "email": {}})")), "agents[0].triggers.email", "unknown_field");
  CHECK_ONLY(problems(with(R"({"webhook": {"secret": "x"}})")), "agents[0].triggers.webhook.secret", "unknown_field");
  CHECK_ONLY(problems(with(R"([])")), "agents[0].triggers", "wrong_type");
  auto bad = find(problems(with(R"({"schedule": {"cron": "61 * * * *", "timezone": "UTC", "prompt": "p"}})")), "agents[0].triggers.schedule.cron", "invalid_schedule");
  REQUIRE(bad);
  CHECK(bad->message.find("is not a schedule: the minute field has 61, outside 0-59") != std::string::npos);
}

#undef CHECK_HAS
#undef CHECK_ONLY
#undef CHECK_VALID

}  // namespace agents_config_test
